"""Passage similarity for seeding PPR with passages as well as entities (HippoRAG 2), over in-memory embeddings."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from graphwire.core.clients.embeddings import Embedder


class EmbeddingPassageScorer:
    """Cosine similarity of the question to each passage; the best `top_n` positive scores are returned."""

    def __init__(self, embedder: Embedder, passages: Mapping[str, str]) -> None:
        self.embedder = embedder
        self.chunk_ids = list(passages)
        self.matrix = embedder.embed([passages[c] for c in self.chunk_ids])

    def score(self, question: str, top_n: int) -> dict[str, float]:
        sims = self.matrix @ self.embedder.embed_query(question)
        best = np.argsort(-sims)[:top_n]
        return {self.chunk_ids[i]: float(sims[i]) for i in best if sims[i] > 0}
