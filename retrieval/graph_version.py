"""The one change signal of every graph-backed cache: the graph's fingerprint (count-store lookups).

`cypher/graph/fingerprint.cypher` counts entities, chunks, MENTIONS and all relationships; any ingest or delete
changes it. One `GraphVersion` per process (held by `retrieval.services.GraphServices`) reads it at most every
`check_every_s` seconds, and the name index and the PPR snapshot both rebuild from that one reading.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from graphwire.core.graph import Graph
from graphwire.core.refresh import Refreshing

GraphCounts = Mapping[str, int]


def read_counts(graph: Graph) -> dict[str, int]:
    rows = graph.read("graph/fingerprint")
    return {str(k): int(v or 0) for k, v in rows[0].items()} if rows else {}


def fingerprint_of(counts: GraphCounts) -> str:
    blob = repr(sorted(counts.items())) if counts else ""
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class GraphVersion:
    """The graph's counts, re-read at most every `check_every_s` seconds (0: on every call)."""

    def __init__(self, graph: Graph, check_every_s: float = 5.0) -> None:
        self.graph = graph
        self._counts: Refreshing[dict[str, int], dict[str, int]] = Refreshing(
            lambda: read_counts(graph), lambda counts: counts, check_every_s
        )

    def counts(self) -> GraphCounts:
        return self._counts.get()

    def fingerprint(self) -> str:
        """Changes when entities, chunks, MENTIONS or relationships are added or removed."""
        return fingerprint_of(self.counts())

    def entities(self) -> tuple[int, int]:
        """(entities, MENTIONS): what the name index depends on."""
        counts = self.counts()
        return (int(counts.get("entities", 0)), int(counts.get("mentions", 0)))
