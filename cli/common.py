"""What the CLI commands share: opening Neo4j with an error message instead of a traceback."""

from __future__ import annotations

import typer
from rich.console import Console

from graphwire.core.graph import Graph
from graphwire.core.settings import Settings


def open_graph_or_exit(settings: Settings, console: Console) -> Graph:
    """The configured graph; a missing password or bad URI ends the command with the reason (exit 1)."""
    try:
        return Graph.from_settings(settings)
    except RuntimeError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None
