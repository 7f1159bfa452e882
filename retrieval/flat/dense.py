"""The vector baseline: ChromaDB top-k over the chunk store (what `mode=vector` serves)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.documents import Chunk
from graphwire.retrieval.flat.common import Guidance, GuidanceMode
from graphwire.retrieval.flat.fusion import RRF_K, top_positions
from graphwire.retrieval.flat.index import FlatIndex, single_threaded
from graphwire.retrieval.models import RankedChunk, RetrievalResult
from graphwire.retrieval.timing import StageTimer

BOOST_POOL = 50  # dense candidates re-ranked together with the guidance in boost mode


class DenseRetriever:
    name = "vector"

    def __init__(self, store: ChunkStore, index: FlatIndex | None = None) -> None:
        """`index`: search its snapshot's chunk vectors exactly instead of Chroma's index (a restricted reader's
        scoped index, retrieval/scope.py: the store's own index would rank chunks the reader may not read)."""
        self.store = store
        self.index = index

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        return self.retrieve_guided(question, top_k, None)

    def retrieve_guided(self, question: str, top_k: int, guidance: Guidance | None) -> RetrievalResult:
        timer = StageTimer()
        with timer.stage("embed"):
            vector = self.store.embedder.embed_query(question)
        restrict = guidance.chunk_ids if guidance and guidance.mode is GuidanceMode.RESTRICT else None
        pool = top_k if guidance is None or restrict is not None else max(BOOST_POOL, top_k)
        with timer.stage("search"):
            hits = self._search(vector, pool, restrict)
        if guidance is not None and guidance.mode is GuidanceMode.BOOST:
            hits = _boost(hits, guidance)[:top_k]
        with timer.stage("fetch"):
            chunks = self._chunks([chunk_id for chunk_id, _ in hits])
        scores = dict(hits)
        ranked = [RankedChunk.from_chunk(c, scores[c.id]) for c in chunks]
        return RetrievalResult(mode=self.name, chunks=ranked, timings_ms=timer.finish())

    def nearest(self, question: str, k: int) -> list[tuple[str, float]]:
        """The k chunks closest to `question` by cosine similarity, best first."""
        return self._search(self.store.embedder.embed_query(question), k, None)

    def _search(self, vector: Any, k: int, restrict: list[str] | None) -> list[tuple[str, float]]:
        if self.index is None:
            return self.store.query_vector(vector, k, restrict)
        snapshot = self.index.snapshot()
        if not len(snapshot):
            return []
        with single_threaded():
            scores = (snapshot.vectors @ np.asarray(vector, dtype=np.float32)).astype(np.float64)
        allowed = None
        if restrict is not None:
            allowed = np.zeros(len(snapshot), dtype=bool)
            allowed[[snapshot.positions[c] for c in restrict if c in snapshot.positions]] = True
        return [(snapshot.chunks[i].id, float(scores[i])) for i in top_positions(scores, k, allowed)]

    def _chunks(self, ids: list[str]) -> list[Chunk]:
        if self.index is None:
            return self.store.get(ids)
        snapshot = self.index.snapshot()
        return [snapshot.chunks[snapshot.positions[c]] for c in ids if c in snapshot.positions]


def _boost(hits: list[tuple[str, float]], guidance: Guidance) -> list[tuple[str, float]]:
    guided = {chunk_id: rank for rank, chunk_id in enumerate(dict.fromkeys(guidance.chunk_ids), start=1)}
    fused = [
        (chunk_id, 1 / (RRF_K + rank) + (guidance.weight / (RRF_K + guided[chunk_id]) if chunk_id in guided else 0.0))
        for rank, (chunk_id, _) in enumerate(hits, start=1)
    ]
    return sorted(fused, key=lambda item: -item[1])
