"""Chunk records (text and metadata) cached by id, so the templates move ids and counters, not texts.

A chunk id is a hash of its document, position and text, so the record behind an id never changes: a cached record
is never stale, and re-ingested text arrives under a new id.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
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

    def __init__(self, graph: Graph, max_chunks: int = 20_000) -> None:
        self.graph = graph
        self.max_chunks = max_chunks
        self._records: OrderedDict[str, ChunkRecord] = OrderedDict()
        self._lock = threading.Lock()

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
        rows = self.graph.read("retrieve/chunks_by_id", ids=ids)
        return {
            row["chunk_id"]: ChunkRecord.model_validate({**row, "published_at": to_date(row["published_at"])})
            for row in rows
        }
