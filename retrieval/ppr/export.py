"""Export the walk graph from Neo4j with one read, and keep it cached until ingestion changes the graph."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from neo4j import Result

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import default_of
from graphwire.core.stores.refresh import Derived, Refreshing
from graphwire.retrieval.graph_version import GraphVersion, fingerprint_of, read_counts
from graphwire.retrieval.ppr.config import GraphOptions
from graphwire.retrieval.ppr.engine import WalkGraph, build_walk_graph
from graphwire.retrieval.ppr.snapshot import EntityRow, GraphSnapshot, MentionRow, RelationRow, build_snapshot


def graph_fingerprint(graph: Graph) -> str:
    """Changes when entities, chunks, MENTIONS or relationships are added or removed (count-store lookups)."""
    return fingerprint_of(read_counts(graph))


def _collect(result: Result) -> tuple[list[EntityRow], list[MentionRow], list[RelationRow]]:
    entities: list[EntityRow] = []
    mentions: list[MentionRow] = []
    relations: list[RelationRow] = []
    for record in result:
        kind, a, b, typ, items, counts, flags, chunks, names = record.values()
        if kind == "E":
            entities.append(EntityRow(a, b or a, typ or "", tuple(items or ())))
        elif kind == "M":
            mentions.extend(
                MentionRow(a, key, int(n or 1), bool(flag), tuple(sentences or ()), _taught(said))
                for key, n, flag, sentences, said in zip(items, counts, flags, chunks, names, strict=True)
            )
        else:  # R: `flags` holds the relationship types, `chunks` their chunk_ids lists
            relations.extend(
                RelationRow(a, rel_type, target, tuple(ids or ()))
                for target, rel_type, ids in zip(items, flags, chunks, strict=True)
            )
    return entities, mentions, relations


def _taught(names: list[str | None]) -> tuple[str, ...] | None:
    """A mention's names; None where they were never recorded (`[null]` from graph/snapshot)."""
    return None if None in names else tuple(str(name) for name in names)


def export_snapshot(graph: Graph) -> GraphSnapshot:
    """One read transaction; the fingerprint is taken just before it, so a concurrent write only forces a rebuild."""
    fingerprint = graph_fingerprint(graph)
    entities, mentions, relations = graph.read_each("graph/snapshot", _collect)
    return build_snapshot(entities, mentions, relations, fingerprint=fingerprint)


class SnapshotCache:
    """The current snapshot and its walk graphs (one per GraphOptions), rebuilt only when the fingerprint changes.

    The fingerprint comes from `version` (the process's one `GraphVersion`, shared with the name index) or, standalone,
    from a `GraphVersion` of its own that re-reads it at most every `check_interval_s` seconds (0 = on every call).
    """

    def __init__(
        self,
        graph: Graph,
        check_interval_s: float = default_of("ppr_snapshot_check_s"),
        exporter: Callable[[Graph], GraphSnapshot] = export_snapshot,
        version: GraphVersion | None = None,
    ) -> None:
        self.graph = graph
        self.version = version or GraphVersion(graph, check_every_s=check_interval_s)
        self._exporter = exporter
        self._cache: Refreshing[str, GraphSnapshot] = Refreshing(
            self.version.fingerprint, self._export, 0.0, name="ppr_snapshot"
        )
        self._walks: dict[str, WalkGraph] = {}
        self._lock = threading.Lock()

    @property
    def builds(self) -> int:
        return self._cache.builds

    @property
    def last_build_ms(self) -> float:
        return self._cache.last_build_ms

    def _export(self, _fingerprint: str) -> GraphSnapshot:
        return self._exporter(self.graph)

    def snapshot(self) -> GraphSnapshot:
        return self._cache.get()

    @property
    def current(self) -> GraphSnapshot | None:
        """The snapshot exported last, without exporting or checking it (None before the first `snapshot`)."""
        return self._cache.current

    def walks(self) -> int:
        """How many walk graphs of the current snapshot are built."""
        with self._lock:
            return len(self._walks)

    def titled_keys(self) -> frozenset[str]:
        """Keys of the entities some chunk has as its title entity (what its document is about)."""
        return self.snapshot().titled_keys

    def walk(self, options: GraphOptions) -> WalkGraph:
        snap = self.snapshot()
        key = options.model_dump_json()
        with self._lock:
            walk = self._walks.get(key)
            if walk is None or walk.snapshot is not snap:
                if walk is not None:  # the graph changed: every walk graph belongs to the old snapshot
                    self._walks.clear()
                walk = self._walks[key] = build_walk_graph(snap, options)
            return walk

    def stats(self) -> dict[str, Any]:
        snap = self._cache.current
        return {
            "builds": self.builds,
            "last_build_ms": round(self.last_build_ms, 1),
            "fingerprint": snap.fingerprint if snap else None,
            "entities": snap.n_entities if snap else 0,
            "chunks": snap.n_chunks if snap else 0,
            "relations": snap.n_relations if snap else 0,
        }


class ScopedSnapshots(SnapshotCache):
    """The shared snapshot as a restricted reader sees it (`GraphSnapshot.restricted`, retrieval/scope.py), made
    again when the shared one is rebuilt, with walk graphs of its own."""

    def __init__(self, base: SnapshotCache, readable: frozenset[str], scope: str) -> None:
        self.graph = base.graph
        self.version = base.version
        self.base = base
        self.scope = scope
        self._walks = {}
        self._lock = threading.Lock()
        self._view: Derived[GraphSnapshot] = Derived(lambda shared: shared.restricted(readable, scope))

    @property
    def builds(self) -> int:
        return self.base.builds

    @property
    def last_build_ms(self) -> float:
        return self.base.last_build_ms

    def snapshot(self) -> GraphSnapshot:
        return self._view.of(self.base.snapshot())

    @property
    def current(self) -> GraphSnapshot | None:
        return self._view.current

    def stats(self) -> dict[str, Any]:
        snap = self.current
        return {
            **self.base.stats(),
            "scope": self.scope,
            "entities": snap.n_entities if snap else 0,
            "chunks": snap.n_chunks if snap else 0,
            "relations": snap.n_relations if snap else 0,
        }
