"""Read the graph as export lines, in a fixed order: days, documents, chunks, entities (each by key), then every
relationship by its start node (in the same order), type, end and properties. Two reads of the same graph give the
same lines.

The whole graph is read a page at a time (`PAGE` nodes with their outgoing relationships); a neighbourhood is the
entities within `hops` hops of one entity, either way over any relationship between entities, and the relationships
among them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.ingest.exchange.models import KINDS, Endpoint, ExchangeError, NodeLine, RelationshipLine

PAGE = 2000
MAX_HOPS = 3
PAGES = {"Date": "exchange/dates_page", "Document": "exchange/documents_page", "Chunk": "exchange/chunks_page",
         "Entity": "exchange/entities_page"}  # fmt: skip


@dataclass(frozen=True)
class NodeRecord:
    """One node read with its outgoing relationships, as lines."""

    node: NodeLine
    relationships: list[RelationshipLine]


def read_graph(graph: Graph, page: int = PAGE) -> Iterator[NodeRecord]:
    """Every exported node of the graph in export order, a page at a time."""
    for kind in KINDS:
        after = ""
        while True:
            rows = graph.read(PAGES[kind], after=after, limit=page)
            for row in rows:
                yield _record(kind, row)
            if len(rows) < page:
                break
            after = rows[-1]["key"]


def read_neighbourhood(graph: Graph, key: str, hops: int) -> Iterator[NodeRecord]:
    """The entities within `hops` hops of the entity `key` and the relationships among them."""
    if not 1 <= hops <= MAX_HOPS:
        raise ExchangeError(f"hops is {hops}; a neighbourhood export takes 1 to {MAX_HOPS}")
    if not graph.read("exchange/entities_at", keys=[key]):
        raise ExchangeError(f"no entity with key {key!r}", status=404)
    seen, frontier = {key}, [key]
    for _ in range(hops):
        found = {row["key"] for row in graph.read("exchange/entity_neighbours", keys=frontier)}
        frontier = sorted(found - seen)
        seen |= found
        if not frontier:
            break
    for row in graph.read("exchange/entities_at", keys=sorted(seen)):
        yield _record("Entity", row)


def _record(kind: str, row: dict[str, Any]) -> NodeRecord:
    props = {k: v for k, v in row["props"].items() if k != "workspace"}  # an export moves to any workspace
    label = props.get("label") if kind == "Entity" else kind
    if not isinstance(label, str) or not label:
        raise ExchangeError(f"the entity {row['key']!r} has no label property: `graphwire db check` finds it")
    start = Endpoint(label=label, key=str(row["key"]))
    rels = [
        RelationshipLine(
            type=rel["type"],
            start=start,
            end=Endpoint(label=str(rel["end_label"]), key=str(rel["end_key"])),
            properties=rel["props"],
        )
        for rel in row["rels"]
        if rel is not None
    ]
    rels.sort(key=_rel_order)
    return NodeRecord(NodeLine(label=label, key=str(row["key"]), properties=props), rels)


def _rel_order(rel: RelationshipLine) -> tuple[str, str, str, str]:
    return rel.type, rel.end.label, rel.end.key, json.dumps(rel.properties, sort_keys=True)
