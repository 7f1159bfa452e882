"""The `oracle` system: the best ranking any retriever could return from these chunks (it reads the gold facts).

It measures the ceiling the chunking allows (a gold fact cut by a chunk boundary is found by no retriever), so a
report shows how far each system is from what is reachable, not from 1.0. On title-scored questions it returns one
chunk of each gold document that the store holds (the ceiling there is a gold title missing from the store).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from graphwire.core.documents import Chunk
from graphwire.eval.questions import EvalQuestion, TitleQuestion
from graphwire.eval.scorers import normalize_title, squash
from graphwire.retrieval.models import RankedChunk, RetrievalResult


class OracleRetriever:
    """Greedy set cover: the chunk holding the most not-yet-covered gold facts first (it maximises the official AP)."""

    name = "oracle"

    def __init__(self, chunks: Iterable[Chunk], questions: Sequence[EvalQuestion]) -> None:
        self.chunks = list(chunks)
        self._squashed = [squash(c.text) for c in self.chunks]
        self._gold = {q.query: [squash(f) for f in q.gold_facts] for q in questions if not isinstance(q, TitleQuestion)}
        self._gold_titles = {q.query: q.gold_titles for q in questions if isinstance(q, TitleQuestion)}
        self._first_chunk: dict[str, int] = {}
        for i in sorted(range(len(self.chunks)), key=lambda i: self.chunks[i].index):
            self._first_chunk.setdefault(normalize_title(self.chunks[i].title), i)

    def _by_title(self, titles: Sequence[str], top_k: int) -> list[int]:
        found = (self._first_chunk.get(normalize_title(t)) for t in titles)
        return [i for i in found if i is not None][:top_k]

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        started = time.perf_counter()
        if question in self._gold_titles:
            titled = self._by_title(self._gold_titles[question], top_k)
            ranked = [RankedChunk.from_chunk(self.chunks[i], top_k - rank) for rank, i in enumerate(titled)]
            return RetrievalResult(
                mode=self.name, chunks=ranked, timings_ms={"oracle": (time.perf_counter() - started) * 1000}
            )
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
