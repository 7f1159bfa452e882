"""`graphwire db init`: apply the constraints and indexes in cypher/schema/ (idempotent)."""

from __future__ import annotations

import typer
from rich.console import Console

from graphwire.cli.common import NEO4J_ERRORS, fail, neo4j_error_line, open_graph_or_exit
from graphwire.core.bootstrap import apply_schema
from graphwire.core.settings import get_settings

app = typer.Typer(help="Database administration.", no_args_is_help=True)
console = Console()


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
