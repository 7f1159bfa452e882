"""Apply the constraints and indexes in cypher/schema/ (idempotent: every statement uses IF NOT EXISTS)."""

from __future__ import annotations

from graphwire import cypher
from graphwire.core.clients.graph import Graph
from graphwire.core.workspaces import DEFAULT_WORKSPACE


def apply_schema(graph: Graph, await_timeout_s: int = 60, limit: int = 10_000, *, migrate: bool = True) -> list[str]:
    """Create what is missing, wait for the indexes to come online, return the statement names applied. A store
    written before workspaces moves into `default` first (`move_into_default`), unless the caller has just done it
    (`migrate=False`: the CLI's `open_graph_or_exit`), since finding out is a scan of the nodes."""
    if migrate:
        move_into_default(graph, limit)
    applied = []
    for name, _ in cypher.statements_in("schema"):
        graph.write(name)
        applied.append(name)
    graph.read("admin/await_indexes", timeout_s=await_timeout_s)  # waits on the member that serves reads
    return applied


def move_into_default(graph: Graph, limit: int = 10_000) -> int:
    """The nodes of a store written before workspaces join `default`, `limit` per transaction (none when there are
    none: a scan of the nodes); returns how many moved. Every command that opens the graph runs it first."""
    moved = 0
    while assigned := graph.write("admin/assign_default_workspace", workspace=DEFAULT_WORKSPACE, limit=limit)[0][
        "assigned"
    ]:
        moved += assigned
    return moved


def empty_graph(graph: Graph, limit: int = 10_000) -> int:
    """Delete every node and relationship of the graph's workspace in bounded transactions (one DETACH DELETE of a
    large graph exceeds the transaction memory limit: a hub alone has thousands of relationships); returns the number
    of nodes deleted."""
    while graph.write("admin/delete_relationships_batch", limit=limit)[0]["deleted"]:
        pass
    nodes = 0
    while deleted := graph.write("admin/delete_nodes_batch", limit=limit)[0]["deleted"]:
        nodes += deleted
    return nodes
