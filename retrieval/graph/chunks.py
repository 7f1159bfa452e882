"""Chunk records (text and metadata) cached by id, so the templates move ids and counters, not texts.

A chunk id is a hash of its document, position and text, so the record behind an id never changes: a cached record
is never stale, and re-ingested text arrives under a new id.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import date
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.retrieval.models import ChunkRecord


def to_date(value: Any) -> date | None:
    """Neo4j dates, ISO strings and datetimes (as stored by ingestion) -> date."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, date):
        return value if type(value) is date else value.date()  # type: ignore[attr-defined]
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


class ChunkCache:
    """A bounded LRU of chunk records; misses are read in one `retrieve/chunks_by_id` call. `get_many` returns the
    records in the order of the ids asked for, whether they were cached or read."""

    def __init__(
        self,
        graph: Graph,
        max_chunks: int = 20_000,
        *,
        prepare: Callable[[ChunkRecord], object] | None = None,
    ) -> None:
        """`prepare`: called once on every record read (the graph retriever computes its terms then, not during a
        question)."""
        self.graph = graph
        self.max_chunks = max_chunks
        self.prepare = prepare
        self._records: OrderedDict[str, ChunkRecord] = OrderedDict()
        self._lock = threading.Lock()
        self._warmed = False

    def warm(self, page: int = 2000) -> int:
        """Read every chunk into the cache, page by page, when the store holds no more than the cache keeps: a
        store of some thousand chunks is then served from memory after its first seconds. Returns how many were read
        (0 when the store is too large, or when it was read before: new chunks come in as questions reach them).
        Long-lived processes call it before their first question (RetrievalContext.warm); a failed read leaves the
        cache as it was, to be warmed by a later call."""
        with self._lock:
            if self._warmed:
                return 0
            self._warmed = True
        try:
            return self._read_all(page)
        except BaseException:
            with self._lock:
                self._warmed = False
            raise

    def _read_all(self, page: int) -> int:
        [count] = self.graph.read("retrieve/chunk_count")
        if count["chunks"] > self.max_chunks:
            return 0
        after, read = "", 0
        while True:
            rows = self.graph.read("retrieve/chunks_page", after=after, limit=page)
            records = self._records_of(rows)
            with self._lock:
                for chunk_id, record in records.items():
                    self._records.setdefault(chunk_id, record)
            read += len(rows)
            if len(rows) < page:
                return read
            after = rows[-1]["chunk_id"]

    def get_many(self, ids: list[str]) -> dict[str, ChunkRecord]:
        found: dict[str, ChunkRecord] = {}
        with self._lock:
            for chunk_id in ids:
                record = self._records.get(chunk_id)
                if record is not None:
                    self._records.move_to_end(chunk_id)
                    found[chunk_id] = record
        missing = [chunk_id for chunk_id in dict.fromkeys(ids) if chunk_id not in found]
        if missing:
            loaded = self._load(missing)
            found.update(loaded)
            with self._lock:
                self._records.update(loaded)
                while len(self._records) > self.max_chunks:
                    self._records.popitem(last=False)
        # in the order asked, whatever was cached: callers iterate the records, and ties keep this order
        return {chunk_id: found[chunk_id] for chunk_id in dict.fromkeys(ids) if chunk_id in found}

    def _load(self, ids: list[str]) -> dict[str, ChunkRecord]:
        return self._records_of(self.graph.read("retrieve/chunks_by_id", ids=ids))

    def _records_of(self, rows: list[dict[str, Any]]) -> dict[str, ChunkRecord]:
        records = {
            row["chunk_id"]: ChunkRecord.model_validate({**row, "published_at": to_date(row["published_at"])})
            for row in rows
        }
        if self.prepare is not None:
            for record in records.values():
                self.prepare(record)
        return records
