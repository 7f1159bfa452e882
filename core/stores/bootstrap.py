"""Apply the constraints and indexes in cypher/schema/ (idempotent: every statement uses IF NOT EXISTS)."""

from __future__ import annotations

from graphwire import cypher
from graphwire.core.clients.graph import Graph


def apply_schema(graph: Graph, await_timeout_s: int = 60) -> list[str]:
    """Create what is missing, wait for the indexes to come online, return the statement names applied."""
    applied = []
    for name, _ in cypher.statements_in("schema"):
        graph.write(name)
        applied.append(name)
    graph.read("admin/await_indexes", timeout_s=await_timeout_s)  # waits on the member that serves reads
    return applied


def empty_graph(graph: Graph, limit: int = 10_000) -> int:
    """Delete every node and relationship in bounded transactions (one DETACH DELETE of a large graph exceeds the
    transaction memory limit: a hub alone has thousands of relationships); returns the number of nodes deleted."""
    while graph.write("admin/delete_relationships_batch", limit=limit)[0]["deleted"]:
        pass
    nodes = 0
    while deleted := graph.write("admin/delete_nodes_batch", limit=limit)[0]["deleted"]:
        nodes += deleted
    return nodes
