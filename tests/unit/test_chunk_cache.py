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


class _Store(_Graph):
    """A store of `size` chunks: counts them, serves them page by page in id order, and by id."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.ids = [f"c{i:03d}" for i in range(size)]
        self.pages = 0

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "retrieve/chunk_count":
            return [{"chunks": len(self.ids)}]
        if name == "retrieve/chunks_page":
            self.pages += 1
            page = [cid for cid in self.ids if cid > params["after"]][: params["limit"]]
            return super().read("retrieve/chunks_by_id", ids=page)
        return super().read(name, **params)


def test_warming_reads_a_small_store_whole_and_prepares_each_record_once() -> None:
    store = _Store(25)
    prepared: list[str] = []
    cache = ChunkCache(store, max_chunks=100, prepare=lambda r: prepared.append(r.chunk_id))  # type: ignore[arg-type]
    assert cache.warm(page=10) == 25
    assert store.pages == 3  # 10 + 10 + 5
    store.read_ids.clear()
    records = cache.get_many(["c024", "c000", "c013"])
    assert list(records) == ["c024", "c000", "c013"]
    assert store.read_ids == []  # served from memory
    assert sorted(prepared) == store.ids


def test_a_store_larger_than_the_cache_is_not_read_whole() -> None:
    store = _Store(25)
    cache = ChunkCache(store, max_chunks=20)  # type: ignore[arg-type]
    assert cache.warm(page=10) == 0
    assert store.pages == 0
    cache.get_many(["c001"])
    assert store.read_ids == ["c001"]
