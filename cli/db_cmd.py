"""`graphwire db init|reset`: apply the constraints and indexes in cypher/schema/ (idempotent); empty the stores."""

from __future__ import annotations

import shutil
from typing import Annotated

import typer
from rich.console import Console

from graphwire.cli.common import NEO4J_ERRORS, fail, neo4j_error_line, open_graph_or_exit
from graphwire.core.settings import Settings, get_settings
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.core.stores.store_lock import StoreBusyError
from graphwire.core.stores.write_session import WriteSession

app = typer.Typer(help="Database administration.", no_args_is_help=True)
console = Console()
RESET_BATCH = 10_000  # relationships, then nodes, per delete transaction


@app.command()
def init() -> None:
    """Create the constraints, the full-text index and the other indexes; safe to run again."""
    settings = get_settings()
    graph = open_graph_or_exit(settings)
    try:
        applied = apply_schema(graph)
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        graph.close()
    console.print(f"schema applied to {settings.neo4j_uri} ({len(applied)} statements):")
    for name in applied:
        console.print(f"  {name}")


@app.command()
def reset(
    yes: Annotated[bool, typer.Option("--yes", help="confirm: delete every node, vector and ingest record")] = False,
) -> None:
    """Empty the workspace's graph, vector collection and ingest state (constraints, indexes, the LLM extraction
    cache and the other workspaces stay). Without --yes it only says what it would delete."""
    settings = get_settings()
    if not yes:
        raise fail(
            f"this deletes every node of workspace {settings.workspace!r} in {settings.neo4j_uri} (database "
            f"{settings.neo4j_database}), the Chroma collection {settings.chroma_collection!r} and the ingest state "
            f"in {settings.ingest_state_path}; run `graphwire db reset --yes` to do it"
        )
    nodes, vectors = empty_workspace(settings, "graphwire db reset")
    console.print(f"deleted {nodes} nodes, {vectors} vectors and the ingest state of workspace {settings.workspace!r}")


def empty_workspace(settings: Settings, purpose: str) -> tuple[int, int]:
    """Delete the graph (bounded transactions, under the workspace's writer), the vector collections and the ingest
    state of `settings.workspace`; returns the nodes and vectors deleted. Ends the command on a busy or absent store."""
    graph = open_graph_or_exit(settings)
    session = WriteSession(settings, lambda: graph, purpose, stamp=False)  # leaves an empty graph
    try:
        session.open()
    except StoreBusyError as exc:
        graph.close()
        raise fail(str(exc)) from None
    except NEO4J_ERRORS as exc:
        graph.close()
        raise fail(neo4j_error_line(settings, exc)) from None
    try:
        nodes = empty_graph(graph, RESET_BATCH)
        vectors = _drop_collection(settings)
        shutil.rmtree(settings.ingest_state_path, ignore_errors=True)
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        session.close()
        graph.close()
    return nodes, vectors


def _drop_collection(settings: Settings) -> int:
    from graphwire.core.clients.chroma import open_client
    from graphwire.core.clients.chunk_store import drop_collections

    return drop_collections(open_client(settings), settings.chroma_collection)


from graphwire.cli.db_check_cmd import check  # noqa: E402  (its own module: the checks are ingest/consistency.py)

app.command("check")(check)
