"""Graph mode's fill: the primary's fact chunks first, then the fill mode's, which runs beside the primary and is read
only when the facts fall short of top_k (so a fill that failed unread costs nothing)."""

from __future__ import annotations

import threading

import pytest

from graphwire.retrieval.fill import FilledRetriever, RankFusion
from graphwire.retrieval.models import Fact, FactTier, RankedChunk, RetrievalResult


def _chunk(chunk_id: str) -> RankedChunk:
    return RankedChunk(chunk_id=chunk_id, document_id=f"d-{chunk_id}", title=chunk_id, text=chunk_id, score=1.0)


class _Primary:
    name = "graph"

    def __init__(self, backed: list[str], other: list[str]) -> None:
        self.backed, self.other = backed, other

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        fact = Fact(tier=FactTier.KEY, subject="A", subject_label="Person", relationship="WORKS_AT", object="B",
                    object_label="Organization", chunk_ids=self.backed, evidence=[], score=3.0)  # fmt: skip
        chunks = [_chunk(c) for c in [*self.backed, *self.other]]
        return RetrievalResult(mode="graph", chunks=chunks, facts=[fact] if self.backed else [])


class _Fill:
    def __init__(self, chunks: list[str], fail: bool = False, name: str = "fused") -> None:
        self.chunks, self.fail, self.name = chunks, fail, name
        self.threads: list[int] = []
        self.asked: list[int] = []

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        self.threads.append(threading.get_ident())
        self.asked.append(top_k)
        if self.fail:
            raise ConnectionError("vector store unreachable")
        return RetrievalResult(mode=self.name, chunks=[_chunk(c) for c in self.chunks[:top_k]])


def test_fact_chunks_come_first_then_the_fill_then_the_primarys_others() -> None:
    fill = _Fill(["f1", "a", "f2"])
    result = FilledRetriever(_Primary(["a", "b"], ["o1"]), fill).retrieve("q", top_k=4)  # type: ignore[arg-type]
    assert [c.chunk_id for c in result.chunks] == ["a", "b", "f1", "f2"]
    assert [c.retrieved_by for c in result.chunks] == ["graph", "graph", "fused", "fused"]
    assert result.details["fill"] == {"mode": "fused", "chunks": 2, "fact_chunks": 2}
    assert fill.threads and fill.threads[0] != threading.get_ident()  # it ran beside the primary


def test_a_fill_that_is_not_needed_is_not_read_even_when_it_failed() -> None:
    fill = _Fill([], fail=True)
    result = FilledRetriever(_Primary(["a", "b", "c"], []), fill).retrieve("q", top_k=3)  # type: ignore[arg-type]
    assert [c.chunk_id for c in result.chunks] == ["a", "b", "c"]


def test_a_needed_fill_that_failed_fails_the_request() -> None:
    fill = _Fill([], fail=True)
    with pytest.raises(ConnectionError, match="vector store unreachable"):
        FilledRetriever(_Primary(["a"], []), fill).retrieve("q", top_k=3)  # type: ignore[arg-type]


def test_rank_fusion_sums_reciprocal_ranks_and_marks_each_chunk_with_its_best_mode() -> None:
    walk, lexical = _Fill(["x", "y", "z"], name="ppr"), _Fill(["y", "w"], name="bm25")
    result = RankFusion("ppr_bm25", [walk, lexical], depth=3).retrieve("q", top_k=3)  # type: ignore[list-item]
    assert [c.chunk_id for c in result.chunks] == ["y", "x", "w"]  # 1/61 + 1/62, then 1/61, then 1/62 over 1/63
    assert [c.retrieved_by for c in result.chunks] == ["bm25", "ppr", "bm25"]
    assert result.chunks[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert walk.asked == lexical.asked == [9]  # each read depth x top_k deep
    assert lexical.threads[0] != threading.get_ident()  # the second mode ran beside the first


def test_graph_mode_filled_from_a_fusion_keeps_each_fill_chunks_mode() -> None:
    fusion = RankFusion("ppr_bm25", [_Fill(["f1", "a"], name="ppr"), _Fill(["f2"], name="bm25")])  # type: ignore[list-item]
    result = FilledRetriever(_Primary(["a"], []), fusion).retrieve("q", top_k=3)  # type: ignore[arg-type]
    assert [(c.chunk_id, c.retrieved_by) for c in result.chunks] == [("a", "graph"), ("f1", "ppr"), ("f2", "bm25")]
    assert result.details["fill"] == {"mode": "ppr_bm25", "chunks": 2, "fact_chunks": 1}
