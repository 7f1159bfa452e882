"""Which relationship types a question asks about, from the schema's own descriptions (any schema, no keywords)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from graphwire.core.clients.embeddings import Embedder


class RelationTypeScorer:
    """Cosine of the question to each type's description, centred on the mean and scaled so the best type is 1."""

    def __init__(self, embedder: Embedder, descriptions: Mapping[str, str]) -> None:
        self.embedder = embedder
        self.types = list(descriptions)
        self.matrix = embedder.embed([f"{t.replace('_', ' ').lower()}: {descriptions[t]}" for t in self.types])

    def relevance(self, question: str) -> dict[str, float]:
        sims = self.matrix @ self.embedder.embed_query(question)
        centred = np.clip(sims - sims.mean(), 0.0, None)
        top = centred.max()
        if top <= 0:
            return {}
        return {t: float(v / top) for t, v in zip(self.types, centred, strict=True) if v > 0}
