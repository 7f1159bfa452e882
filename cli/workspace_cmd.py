"""`graphwire workspace list|delete`: the workspaces of the store, with their counts; deleting one."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from graphwire.cli.common import NEO4J_ERRORS, fail, neo4j_error_line, open_graph_or_exit
from graphwire.cli.db_cmd import empty_workspace
from graphwire.core import workspaces
from graphwire.core.settings import get_settings

app = typer.Typer(help="Workspaces: named, isolated knowledge bases in one store (docs/security.md).")
console = Console()
KINDS = ("documents", "chunks", "entities")


@app.command("list")
def list_workspaces() -> None:
    """Every workspace that holds documents, chunks or entities, with how many of each."""
    settings = get_settings()
    graph = open_graph_or_exit(settings)
    try:
        rows = graph.read("store/workspaces")
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        graph.close()
    table = Table("workspace", *KINDS)
    for row in rows:
        counts = dict(row["counts"])
        table.add_row(row["workspace"], *(str(counts.get(kind, 0)) for kind in KINDS))
    console.print(table if rows else "no workspace holds anything yet")


@app.command()
def delete(
    name: Annotated[str, typer.Argument(help="The workspace to delete.")],
    yes: Annotated[
        bool, typer.Option("--yes", help="confirm: delete its every node, vector and ingest record")
    ] = False,
) -> None:
    """Delete a workspace: its graph, vector collection and ingest state; the other workspaces stay as they are."""
    try:
        settings = get_settings().for_workspace(workspaces.checked(name))
    except (workspaces.WorkspaceNameError, ValueError) as exc:
        raise fail(str(exc)) from None
    if not yes:
        raise fail(f"this deletes workspace {name!r}: run `graphwire workspace delete {name} --yes` to do it")
    nodes, vectors = empty_workspace(settings, f"graphwire workspace delete {name}")
    console.print(f"deleted workspace {name!r}: {nodes} nodes, {vectors} vectors and its ingest state")
