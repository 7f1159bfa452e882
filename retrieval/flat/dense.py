"""The vector baseline: ChromaDB top-k over the chunk store (what `mode=vector` serves)."""

from __future__ import annotations

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.retrieval.flat.common import Guidance, GuidanceMode
from graphwire.retrieval.flat.fusion import RRF_K
from graphwire.retrieval.models import RankedChunk, RetrievalResult
from graphwire.retrieval.timing import StageTimer

BOOST_POOL = 50  # dense candidates re-ranked together with the guidance in boost mode


class DenseRetriever:
    name = "vector"

    def __init__(self, store: ChunkStore) -> None:
        self.store = store

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        return self.retrieve_guided(question, top_k, None)

    def retrieve_guided(self, question: str, top_k: int, guidance: Guidance | None) -> RetrievalResult:
        timer = StageTimer()
        with timer.stage("embed"):
            vector = self.store.embedder.embed_query(question)
        restrict = guidance.chunk_ids if guidance and guidance.mode is GuidanceMode.RESTRICT else None
        pool = top_k if guidance is None or restrict is not None else max(BOOST_POOL, top_k)
        with timer.stage("search"):
            hits = self.store.query_vector(vector, pool, restrict)
        if guidance is not None and guidance.mode is GuidanceMode.BOOST:
            hits = _boost(hits, guidance)[:top_k]
        with timer.stage("fetch"):
            chunks = self.store.get([chunk_id for chunk_id, _ in hits])
        scores = dict(hits)
        ranked = [RankedChunk.from_chunk(c, scores[c.id]) for c in chunks]
        return RetrievalResult(mode=self.name, chunks=ranked, timings_ms=timer.finish())


def _boost(hits: list[tuple[str, float]], guidance: Guidance) -> list[tuple[str, float]]:
    guided = {chunk_id: rank for rank, chunk_id in enumerate(dict.fromkeys(guidance.chunk_ids), start=1)}
    fused = [
        (chunk_id, 1 / (RRF_K + rank) + (guidance.weight / (RRF_K + guided[chunk_id]) if chunk_id in guided else 0.0))
        for rank, (chunk_id, _) in enumerate(hits, start=1)
    ]
    return sorted(fused, key=lambda item: -item[1])
