"""BM25 over the same chunks as the vector baseline, and its reciprocal-rank fusion with the dense ranking."""

from __future__ import annotations

from graphwire.core.clients.embeddings import Embedder
from graphwire.retrieval.flat.common import Guidance, guidance_bonus, guidance_mask, ranked_chunks
from graphwire.retrieval.flat.fusion import RRF_K, ranks_of, rrf, top_positions
from graphwire.retrieval.flat.index import FlatIndex, IndexSnapshot, Scores
from graphwire.retrieval.models import RetrievalResult
from graphwire.retrieval.timing import StageTimer


class BM25Retriever:
    name = "bm25"

    def __init__(self, index: FlatIndex) -> None:
        self.index = index

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        return self.retrieve_guided(question, top_k, None)

    def retrieve_guided(self, question: str, top_k: int, guidance: Guidance | None) -> RetrievalResult:
        timer = StageTimer()
        with timer.stage("index"):
            snapshot = self.index.snapshot()
        with timer.stage("bm25"):
            scores = snapshot.bm25_scores(self.index.tokenizer(question))
        if guidance is not None:
            scores = rrf([ranks_of(scores)]) + guidance_bonus(snapshot, guidance)
        positions = top_positions(scores, top_k, guidance_mask(snapshot, guidance))
        return RetrievalResult(
            mode=self.name, chunks=ranked_chunks(snapshot, positions, scores), timings_ms=timer.finish()
        )


class FusedRetriever:
    """RRF(dense, BM25) with k=60; dense scores are exact cosine over the store's own vectors."""

    name = "fused"

    def __init__(self, index: FlatIndex, embedder: Embedder, k: int = RRF_K, weights: tuple[float, float] = (1.0, 1.0)):
        self.index = index
        self.embedder = embedder
        self.k = k
        self.weights = weights

    def fused_scores(self, question: str, timer: StageTimer, snapshot: IndexSnapshot) -> Scores:
        """Scores over `snapshot`'s chunks: the caller ranks with the same snapshot (the index may be rebuilt by
        another request meanwhile, with a different number of chunks)."""
        with timer.stage("embed"):
            vector = self.embedder.embed_query(question)
        with timer.stage("dense"):
            dense = snapshot.dense_scores(vector)
        with timer.stage("bm25"):
            lexical = snapshot.bm25_scores(self.index.tokenizer(question))
        with timer.stage("fuse"):
            return rrf([ranks_of(dense), ranks_of(lexical)], self.weights, self.k)

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        return self.retrieve_guided(question, top_k, None)

    def retrieve_guided(self, question: str, top_k: int, guidance: Guidance | None) -> RetrievalResult:
        timer = StageTimer()
        with timer.stage("index"):
            snapshot = self.index.snapshot()
        scores = self.fused_scores(question, timer, snapshot) + guidance_bonus(snapshot, guidance, self.k)
        positions = top_positions(scores, top_k, guidance_mask(snapshot, guidance))
        return RetrievalResult(
            mode=self.name, chunks=ranked_chunks(snapshot, positions, scores), timings_ms=timer.finish()
        )
