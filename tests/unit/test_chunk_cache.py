"""The graph retriever's chunk cache answers in the order asked, whatever it had cached: rankings that keep ties in
that order do not depend on which questions the process answered before."""

from __future__ import annotations

from typing import Any

from graphwire.retrieval.graph.chunks import ChunkCache


class _Graph:
    """Answers `retrieve/chunks_by_id` for any id, counting the ids it was asked for."""

    def __init__(self) -> None:
        self.read_ids: list[str] = []

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        assert name == "retrieve/chunks_by_id"
        self.read_ids += params["ids"]
        return [
            {"chunk_id": cid, "document_id": f"doc-{cid}", "title": cid, "source": None, "published_at": None,
             "text": f"text of {cid}"}
            for cid in params["ids"]
        ]  # fmt: skip


def test_records_come_back_in_the_order_asked_whatever_was_cached() -> None:
    graph = _Graph()
    cache = ChunkCache(graph)  # type: ignore[arg-type]
    cache.get_many(["c", "a"])  # cached now: c, a
    records = cache.get_many(["a", "b", "c", "d", "b"])
    assert list(records) == ["a", "b", "c", "d"]
    assert graph.read_ids == ["c", "a", "b", "d"]  # only the misses were read, once each
    assert records["d"].text == "text of d"
