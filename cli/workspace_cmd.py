"""`graphwire workspace create|list|describe|delete`: the workspaces of the store (core/stores/workspace_registry.py,
the door the API's /v1/workspaces uses too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from graphwire.app.audit_events import cli_audit, local_operator
from graphwire.cli.common import NEO4J_ERRORS, fail, neo4j_error_line, open_graph_or_exit
from graphwire.cli.db_cmd import empty_workspace
from graphwire.core import workspaces
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings, get_settings
from graphwire.core.stores import workspace_registry
from graphwire.core.stores.workspace_registry import KINDS, WorkspaceDeletingError

app = typer.Typer(help="Workspaces: named, isolated knowledge bases in one store (docs/security.md).")
console = Console()
T = TypeVar("T")
NameArg = Annotated[str, typer.Argument(help="The workspace's name: 1-40 lower-case letters, digits, '_' or '-'.")]


def _settings_of(name: str) -> Settings:
    try:
        return get_settings().for_workspace(workspaces.checked(name))
    except (workspaces.WorkspaceNameError, ValueError) as exc:
        raise fail(str(exc), code=2) from None


def _on_graph(settings: Settings, call: Callable[[Graph], T]) -> T:
    graph = open_graph_or_exit(settings)
    try:
        return call(graph)
    except WorkspaceDeletingError as exc:
        raise fail(str(exc)) from None
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        graph.close()


@app.command()
def create(name: NameArg) -> None:
    """Create an empty workspace (ingesting into one with `-w NAME ingest` creates it too)."""
    settings = _settings_of(name)
    created = _on_graph(settings, lambda graph: workspace_registry.create(graph, by="graphwire workspace create"))
    if created:
        cli_audit(settings).record(local_operator(), [("workspace.create", name, {})], workspace=name)
    console.print(f"created workspace {name!r}" if created else f"workspace {name!r} exists already")


@app.command("list")
def list_workspaces() -> None:
    """Every workspace, with how many documents, chunks and entities it holds."""
    found = _on_graph(get_settings(), workspace_registry.entries)
    table = Table("workspace", *KINDS, "state", "created")
    for info in found:
        counts = (str(getattr(info, kind)) for kind in KINDS)
        table.add_row(info.name, *counts, info.state, info.created_at or "")
    console.print(table)


@app.command()
def describe(name: NameArg) -> None:
    """One workspace: its counts (relationships between entities too), who created it and when, its state."""
    info = _on_graph(_settings_of(name), workspace_registry.describe)
    if info is None:
        raise fail(f"no workspace {name!r}: `graphwire workspace list` shows them")
    for field, value in info.model_dump().items():
        console.print(f"{field:<15} {'' if value is None else value}")


@app.command()
def delete(
    name: NameArg,
    yes: Annotated[bool, typer.Option("--yes", help="confirm: delete the workspace and everything in it")] = False,
) -> None:
    """Delete a workspace: its graph, vector collections, ingest state, caches and registry entry; the other
    workspaces stay as they are. Run again, it finishes a delete that was cut short."""
    settings = _settings_of(name)
    if not yes:
        raise fail(f"this deletes workspace {name!r}: run `graphwire workspace delete {name} --yes` to do it")
    done = empty_workspace(settings, f"graphwire workspace delete {name}", keep_entry=False)
    detail = {"nodes": done.nodes, "vectors": done.vectors}
    cli_audit(settings).record(local_operator(), [("workspace.delete", name, detail)], workspace=name)
    console.print(f"deleted workspace {name!r}: {done.nodes} nodes, {done.vectors} vectors and its ingest state")
