"""What the retrieved passages are about: the graph entities each chunk mentions, for the answerer without an LLM.

A question that asks for an entity by what several reports say of it ("Who is the individual ... reported by A and
B?") is answered by the entity those reports are about. The graph already knows it: extraction resolved every way a
chunk names it ("Bankman-Fried", "Sam Bankman-Fried", "SBF") to one node, where the sentences' own named-entity tags
see a surname here and an organisation there. The mentions are read from the PPR snapshot's chunk x entity matrix,
held in memory by the process's `SnapshotCache` (the one the graph modes use), so a lookup costs no Neo4j read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from neo4j.exceptions import ServiceUnavailable

from graphwire.retrieval.ppr.export import SnapshotCache


@dataclass(frozen=True)
class Mentioned:
    name: str
    label: str
    count: int  # how often the chunk mentions it


class PassageEntities(Protocol):
    """The entities each of these chunks mentions (none for a chunk the graph does not hold)."""

    def of(self, chunk_ids: Sequence[str]) -> list[list[Mentioned]]: ...


class SnapshotEntities:
    """`PassageEntities` from the current PPR snapshot (exported on first use, refreshed when the graph changes); none
    while Neo4j cannot be reached.

    `snapshots` gives the process's `SnapshotCache` when first needed: building an answerer reaches no graph, so a
    process serving the flat modes without Neo4j still gets its answerer (only answers to graph-mode results, which
    name outlets, read the mentions)."""

    def __init__(self, snapshots: Callable[[], SnapshotCache]) -> None:
        self.snapshots = snapshots

    def of(self, chunk_ids: Sequence[str]) -> list[list[Mentioned]]:
        try:
            snap = self.snapshots().snapshot()
        except ServiceUnavailable:
            return [[] for _ in chunk_ids]
        mentions = snap.mentions
        out: list[list[Mentioned]] = []
        for chunk_id in chunk_ids:
            row = snap.chunk_index.get(chunk_id, -1)
            span = slice(mentions.indptr[row], mentions.indptr[row + 1]) if row >= 0 else slice(0, 0)
            out.append(
                [
                    Mentioned(snap.entity_names[e], snap.entity_labels[e], int(count))
                    for e, count in zip(mentions.indices[span], mentions.data[span], strict=True)
                ]
            )
        return out
