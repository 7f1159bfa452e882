"""The schema bootstrap (cypher/schema/) against a real Neo4j: what the database holds afterwards, read back with
SHOW CONSTRAINTS / SHOW INDEXES (tests/support/cypher/check/); emptying a graph in bounded transactions."""

from typing import Any

import pytest
from support.schemas import news_caps
from support.synthetic import SyntheticSpec, build

from graphwire.core.clients.graph import Graph
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.ingest.writer import GraphWriter

pytestmark = pytest.mark.integration

UNIQUE_KEYS = {  # unique within a workspace (docs/security.md#workspaces)
    "entity_workspace_key": (["Entity"], ["workspace", "key"]),
    "document_workspace_id": (["Document"], ["workspace", "id"]),
    "chunk_workspace_id": (["Chunk"], ["workspace", "id"]),
    "date_workspace_key": (["Date"], ["workspace", "date"]),
    "edit_workspace_id": (["Edit"], ["workspace", "id"]),  # the audit records of graph edits (docs/curation.md)
}
BEFORE_WORKSPACES = {"entity_key", "document_id", "chunk_id", "date_key", "edit_id"}  # dropped when applied
INDEXES = {
    "entity_names": ("FULLTEXT", ["Entity"], ["name", "aliases"]),  # entity lookup by name or alias
    "entity_norm": ("RANGE", ["Entity"], ["norm"]),
    "entity_label": ("RANGE", ["Entity"], ["label"]),
    "chunk_document": ("RANGE", ["Chunk"], ["document_id"]),
    "document_title": ("RANGE", ["Document"], ["title"]),  # `ingest --delete` by title without a scan
    "document_source": ("RANGE", ["Document"], ["source"]),  # a named outlet's documents, not its REPORTED_BY
    "entity_lookup": ("FULLTEXT", ["Entity"], ["resolve_keys", "link_keys"]),  # ingest reads only what it names
    "entity_fuzzy_key": ("RANGE", ["Entity"], ["fuzzy_key"]),
    "edit_seq": ("RANGE", ["Edit"], ["seq"]),
    **{
        f"{label.lower()}_workspace": ("RANGE", [label], ["workspace"])
        for label in ("Entity", "Document", "Chunk", "Date")
    },
}


def _schema(graph: Graph) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    return graph.read("check/constraints"), graph.read("check/indexes")


def test_schema_bootstrap_creates_the_constraints_and_online_indexes(graph: Graph) -> None:
    apply_schema(graph)
    constraints, indexes = _schema(graph)

    by_name = {c["name"]: c for c in constraints}
    assert not BEFORE_WORKSPACES & set(by_name)
    for name, (labels, properties) in UNIQUE_KEYS.items():
        assert name in by_name, f"constraint {name} missing"
        assert "UNIQUENESS" in str(by_name[name]["type"]), by_name[name]
        assert (by_name[name]["labels"], by_name[name]["properties"]) == (labels, properties)

    index_by_name = {i["name"]: i for i in indexes}
    for name, (kind, labels, properties) in INDEXES.items():
        assert name in index_by_name, f"index {name} missing"
        index = index_by_name[name]
        assert (index["type"], index["labels"], index["properties"]) == (kind, labels, properties)
    owned = {i["owner"] for i in indexes if i["owner"]}
    assert set(UNIQUE_KEYS) <= owned  # each uniqueness constraint is backed by its index
    # apply_schema waits for the indexes: none may still be populating when it returns
    assert all(i["state"] == "ONLINE" for i in indexes), [(i["name"], i["state"]) for i in indexes]


def test_schema_bootstrap_is_idempotent(graph: Graph) -> None:
    apply_schema(graph)
    before = _schema(graph)
    apply_schema(graph)  # every statement is IF NOT EXISTS: a second run changes nothing and raises nothing
    assert _schema(graph) == before


def test_empty_graph_deletes_relationships_then_nodes_in_bounded_transactions(
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`graphwire db reset` on a large graph: one DETACH DELETE of a hub and its thousands of relationships exceeded
    the transaction memory limit, so relationships go first, `limit` at a time."""
    rows = build(SyntheticSpec(documents=60, entities=40, publications=2, days=10, seed=3))
    GraphWriter(graph, batch_size=1_000, threads=1, provenance=news_caps()).write(rows)
    counts = graph.read("ingest/count_nodes")[0]
    deleted: list[tuple[str, int]] = []
    real_write = Graph.write

    def write(self: Graph, name: str, **params: Any) -> list[dict[str, Any]]:
        out = real_write(self, name, **params)
        deleted.append((name, int(out[0]["deleted"])))
        return out

    monkeypatch.setattr(Graph, "write", write)
    assert empty_graph(graph, limit=50) == sum(counts.values())
    relationship_steps = [n for name, n in deleted if name == "admin/delete_relationships_batch"]
    assert len(relationship_steps) > 10 and max(relationship_steps) == 50  # every step bounded, none of them all
    assert deleted.index(("admin/delete_relationships_batch", 0)) < deleted.index(("admin/delete_nodes_batch", 50))
    assert graph.read("ingest/count_nodes")[0] == {k: 0 for k in counts}
