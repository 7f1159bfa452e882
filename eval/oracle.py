"""The `oracle` system: the best ranking any retriever could return from these chunks (it reads the gold facts).

It measures the ceiling the chunking allows (a gold fact cut by a chunk boundary is found by no retriever), so a
report shows how far each system is from what is reachable, not from 1.0.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from core.documents import Chunk
from eval.datasets import Question
from eval.scorers import squash
from retrieval.models import RankedChunk, RetrievalResult


class OracleRetriever:
    """Greedy set cover: the chunk holding the most not-yet-covered gold facts first (it maximises the official AP)."""

    name = "oracle"

    def __init__(self, chunks: Iterable[Chunk], questions: Sequence[Question]) -> None:
        self.chunks = list(chunks)
        self._squashed = [squash(c.text) for c in self.chunks]
        self._gold = {q.query: [squash(f) for f in q.gold_facts] for q in questions}

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        started = time.perf_counter()
        missing = set(self._gold.get(question, []))
        covers = {i: {f for f in missing if f in text} for i, text in enumerate(self._squashed)}
        picked: list[int] = []
        while missing and len(picked) < top_k:
            best = max(covers, key=lambda i: len(covers[i] & missing), default=None)
            if best is None or not covers[best] & missing:
                break
            picked.append(best)
            missing -= covers.pop(best)
        ranked = [RankedChunk.from_chunk(self.chunks[i], top_k - rank) for rank, i in enumerate(picked)]
        timings = {"oracle": (time.perf_counter() - started) * 1000}
        return RetrievalResult(mode=self.name, chunks=ranked, timings_ms=timings)
