"""A whole store as the tests read it with their own statements (tests/support/cypher/check/), independent of the
product's exporter: every node and relationship with its properties, lists in their stored order, sorted; not the
audit records of edits or the curation rules they leave, the store's version stamp or a writer lease."""

from __future__ import annotations

from graphwire.core.clients.graph import Graph


def store_state(graph: Graph) -> list[str]:
    nodes = sorted(
        repr((sorted(r["labels"]), sorted(r["props"].items())))
        for r in graph.read("check/export_nodes")
        if not {"Edit", "CurationRule"} & set(r["labels"])
    )
    rels = sorted(
        repr((r["type"], r["source"], r["target"], sorted(r["props"].items())))
        for r in graph.read("check/export_relationships")
    )
    return [*nodes, *rels]
