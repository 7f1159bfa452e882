"""Export the walk graph from Neo4j with one read, and keep it cached until ingestion changes the graph."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any, LiteralString, cast

from neo4j import ManagedTransaction

import cypher
from core.graph import Graph
from retrieval.ppr.config import GraphOptions
from retrieval.ppr.engine import WalkGraph, build_walk_graph
from retrieval.ppr.snapshot import EntityRow, GraphSnapshot, MentionRow, RelationRow, build_snapshot


def graph_fingerprint(graph: Graph) -> str:
    """Changes when entities, chunks, MENTIONS or relationships are added or removed (count-store lookups)."""
    rows = graph.read("graph/fingerprint")
    blob = repr(sorted(rows[0].items())) if rows else ""
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _collect(tx: ManagedTransaction) -> tuple[list[EntityRow], list[MentionRow], list[RelationRow]]:
    entities: list[EntityRow] = []
    mentions: list[MentionRow] = []
    relations: list[RelationRow] = []
    result = tx.run(cast(LiteralString, cypher.query("graph/snapshot")))
    for record in result:
        kind, a, b, typ, items, counts, flags, chunks = record.values()
        if kind == "E":
            entities.append(EntityRow(a, b or a, typ or "", tuple(items or ())))
        elif kind == "M":
            mentions.extend(
                MentionRow(a, key, int(n or 1), bool(flag)) for key, n, flag in zip(items, counts, flags, strict=True)
            )
        else:  # R: `flags` holds the relationship types, `chunks` their chunk_ids lists
            relations.extend(
                RelationRow(a, rel_type, target, tuple(ids or ()))
                for target, rel_type, ids in zip(items, flags, chunks, strict=True)
            )
    return entities, mentions, relations


def export_snapshot(graph: Graph) -> GraphSnapshot:
    """One read transaction; the fingerprint is taken just before it, so a concurrent write only forces a rebuild."""
    fingerprint = graph_fingerprint(graph)
    with graph.session() as session:
        entities, mentions, relations = session.execute_read(_collect)
    return build_snapshot(entities, mentions, relations, fingerprint=fingerprint)


class SnapshotCache:
    """The current snapshot and its walk graphs (one per GraphOptions), rebuilt only when the fingerprint changes.

    The fingerprint is checked at most every `check_interval_s` seconds (0 = on every call).
    """

    def __init__(
        self,
        graph: Graph,
        check_interval_s: float = 5.0,
        exporter: Callable[[Graph], GraphSnapshot] = export_snapshot,
    ) -> None:
        self.graph = graph
        self.check_interval_s = check_interval_s
        self._exporter = exporter
        self._snapshot: GraphSnapshot | None = None
        self._walks: dict[str, WalkGraph] = {}
        self._checked_at = 0.0
        self._lock = threading.Lock()
        self.builds = 0
        self.last_build_ms = 0.0

    def snapshot(self) -> GraphSnapshot:
        with self._lock:
            now = time.monotonic()
            if self._snapshot is not None and now - self._checked_at < self.check_interval_s:
                return self._snapshot
            self._checked_at = now
            if self._snapshot is None or graph_fingerprint(self.graph) != self._snapshot.fingerprint:
                started = time.perf_counter()
                self._snapshot = self._exporter(self.graph)
                self._walks = {}
                self.builds += 1
                self.last_build_ms = (time.perf_counter() - started) * 1000
            return self._snapshot

    def walk(self, options: GraphOptions) -> WalkGraph:
        snap = self.snapshot()
        key = options.model_dump_json()
        with self._lock:
            walk = self._walks.get(key)
            if walk is None or walk.snapshot is not snap:
                walk = self._walks[key] = build_walk_graph(snap, options)
            return walk

    def stats(self) -> dict[str, Any]:
        snap = self._snapshot
        return {
            "builds": self.builds,
            "last_build_ms": round(self.last_build_ms, 1),
            "fingerprint": snap.fingerprint if snap else None,
            "entities": snap.n_entities if snap else 0,
            "chunks": snap.n_chunks if snap else 0,
            "relations": snap.n_relations if snap else 0,
        }
