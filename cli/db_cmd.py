"""`graphwire db init|reset`: apply the constraints and indexes in cypher/schema/ (idempotent); empty the stores."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from graphwire.cli.common import NEO4J_ERRORS, fail, neo4j_error_line, open_graph_or_exit
from graphwire.core.settings import Settings, get_settings
from graphwire.core.stores import workspace_registry
from graphwire.core.stores.bootstrap import apply_schema
from graphwire.core.stores.store_lock import StoreBusyError
from graphwire.core.stores.workspace_registry import DeleteResult

app = typer.Typer(help="Database administration.", no_args_is_help=True)
console = Console()


@app.command()
def init() -> None:
    """Create the constraints, the full-text index and the other indexes; safe to run again."""
    settings = get_settings()
    graph = open_graph_or_exit(settings)
    try:
        applied = apply_schema(graph, migrate=False)  # open_graph_or_exit moved a pre-workspace store
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
    done = empty_workspace(settings, "graphwire db reset")
    console.print(
        f"deleted {done.nodes} nodes, {done.vectors} vectors and the ingest state of workspace {settings.workspace!r}"
    )


def empty_workspace(settings: Settings, purpose: str, *, keep_entry: bool = True) -> DeleteResult:
    """Empty (`keep_entry`) or delete the workspace of `settings`: its graph in bounded transactions under its
    writer, its vector collections and its ingest state (core/stores/workspace_registry.py). Ends the command on a
    busy or absent store; run again, it finishes a delete cut short."""
    graph = open_graph_or_exit(settings)
    try:
        return workspace_registry.delete(settings, graph, lambda: _chroma(settings), keep_entry=keep_entry, by=purpose)
    except StoreBusyError as exc:  # another writer, or (emptying) a workspace being deleted
        raise fail(str(exc)) from None
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        graph.close()


def _chroma(settings: Settings) -> object:
    from graphwire.core.clients.chroma import open_client  # chromadb takes a second to import: only when needed

    return open_client(settings)


from graphwire.cli.db_check_cmd import check  # noqa: E402  (its own module: the checks are ingest/consistency.py)

app.command("check")(check)
