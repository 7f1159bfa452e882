"""The one change signal of every graph-backed cache: the graph's fingerprint (count-store lookups).

`cypher/graph/fingerprint.cypher` counts entities, chunks, MENTIONS and all relationships, and the store's version
stamp (`core/stores/store_version.py`, bumped by every writer, in this process or another) is read beside them: any
ingest, update or delete changes it, even one that leaves every count as it was. One `GraphVersion` per process (held by
`retrieval.services.GraphServices`) reads it at most every `check_every_s` seconds, and the name index and the PPR
snapshot both rebuild from that one reading.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import default_of
from graphwire.core.stores.refresh import Refreshing
from graphwire.core.stores.store_version import read_stamp

GraphCounts = Mapping[str, int]


def read_counts(graph: Graph) -> dict[str, int]:
    """The counts, and the version stamp as a number under "stamp" (0 for a store never stamped)."""
    rows = graph.read("graph/fingerprint")
    counts = {str(k): int(v or 0) for k, v in rows[0].items()} if rows else {}
    stamp = read_stamp(graph)
    counts["stamp"] = int(stamp[:15], 16) if stamp else 0
    return counts


def fingerprint_of(counts: GraphCounts) -> str:
    blob = repr(sorted(counts.items())) if counts else ""
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class GraphVersion:
    """The graph's counts, re-read at most every `check_every_s` seconds (0: on every call)."""

    def __init__(self, graph: Graph, check_every_s: float = default_of("ppr_snapshot_check_s")) -> None:
        self.graph = graph
        self._counts: Refreshing[dict[str, int], dict[str, int]] = Refreshing(
            lambda: read_counts(graph), lambda counts: counts, check_every_s, name="graph_counts"
        )

    def expire(self) -> None:
        """Re-read the counts on the next call (this process just wrote to the graph)."""
        self._counts.expire()

    def counts(self) -> GraphCounts:
        return self._counts.get()

    def fingerprint(self) -> str:
        """Changes when entities, chunks, MENTIONS or relationships are added or removed."""
        return fingerprint_of(self.counts())

    def entities(self) -> tuple[int, ...]:
        """(entities, MENTIONS, stamp): what the name index depends on."""
        counts = self.counts()
        return (int(counts.get("entities", 0)), int(counts.get("mentions", 0)), int(counts.get("stamp", 0)))
