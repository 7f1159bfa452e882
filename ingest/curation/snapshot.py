"""Read the part of the graph an edit touches, and replace it with an edit's result in one write transaction."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.ingest.curation.models import NodeState, RelState, Snapshot


def read_snapshot(graph: Graph, keys: Iterable[str]) -> Snapshot:
    """The entities of `keys` that exist and every relationship at them, sorted."""
    wanted = sorted(set(keys))
    rows = graph.read("curation/entities", keys=wanted)
    nodes = [NodeState(key=r["key"], labels=sorted(r["labels"]), props=r["props"]) for r in rows]  # any label order
    rels = [RelState(**row) for row in graph.read("curation/relationships", keys=wanted)]
    return Snapshot(nodes=nodes, rels=rels).sorted()


def apply_snapshot(
    graph: Graph,
    remove: Iterable[str],
    after: Snapshot,
    edit: dict[str, Any],
    undoes: str | None = None,
    rules: Iterable[dict[str, Any]] = (),
) -> None:
    """Delete the entities of `remove` with their relationships, write `after`, the audit record `edit` and its
    curation `rules` (an undo: remove those of the edit it undoes), all in one transaction
    (`cypher/curation/apply.cypher`)."""
    graph.write(
        "curation/apply",
        remove=sorted(set(remove)),
        nodes=[n.model_dump() for n in after.nodes],
        rels=[r.model_dump() for r in after.rels],
        edit=edit,
        undoes=undoes,
        rules=list(rules),
    )


def dumps(snapshot: Snapshot) -> str:
    """A snapshot as the JSON an audit record keeps (Neo4j properties cannot nest maps)."""
    return json.dumps(snapshot.sorted().model_dump(), sort_keys=True, separators=(",", ":"))


def loads(text: str) -> Snapshot:
    return Snapshot.model_validate(json.loads(text))
