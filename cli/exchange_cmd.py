"""`graphwire export` and `graphwire import`: the graph as a JSON Lines file (or neo4j-admin CSV files), and a graph
file checked against the schema and written into the store.

A thin surface over `ingest/exchange/service.py` (`GraphExchange`), the same door the HTTP routes and the Python API
use.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from graphwire.app.audit_events import cli_audit, import_event, local_operator
from graphwire.cli.common import fail, writing_graph
from graphwire.core.schema import configured_schema
from graphwire.core.settings import get_settings
from graphwire.ingest.exchange.models import ExchangeError
from graphwire.ingest.exchange.reader import MAX_HOPS
from graphwire.ingest.exchange.service import GraphExchange


class Format(StrEnum):
    jsonl = "jsonl"
    neo4j_csv = "neo4j-csv"


@contextmanager
def _exchange() -> Iterator[GraphExchange]:
    settings = get_settings()
    with writing_graph(settings) as graph:
        try:
            yield GraphExchange(settings, lambda: graph, configured_schema(settings))
        except ExchangeError as exc:
            for error in exc.errors[1:]:  # the first is in the message
                typer.echo(f"  {error}", err=True)
            raise fail(str(exc)) from None


def export(
    out: Annotated[str, typer.Argument(help="the file to write (`-`: standard output), or the folder of neo4j-csv")],
    entity: Annotated[str | None, typer.Option(help="an entity key: export only its neighbourhood")] = None,
    hops: Annotated[int, typer.Option(min=1, max=MAX_HOPS, help="hops of the neighbourhood")] = 1,
    output: Annotated[Format, typer.Option("--format", help="jsonl, or neo4j-admin's CSV files")] = Format.jsonl,
) -> None:
    """Export the graph, or one entity's neighbourhood, as JSON Lines or as neo4j-admin CSV files."""
    with _exchange() as exchange:
        if output is Format.neo4j_csv:
            if out == "-":
                raise fail("neo4j-csv writes a folder of files: give its path")
            command = exchange.export_csv(Path(out), entity, hops)
            typer.echo(f"wrote {out}; import with a stopped Neo4j, from that folder:\n  {' '.join(command)}")
        elif out == "-":
            for line in exchange.export_lines(entity, hops):
                sys.stdout.write(line + "\n")
        else:
            lines = exchange.export_file(Path(out), entity, hops)
            typer.echo(f"wrote {lines} lines to {out}")


def import_graph(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="a JSON Lines graph file")],
    wait: Annotated[float, typer.Option(help="seconds to wait while another process writes")] = 0.0,
) -> None:
    """Import a JSON Lines graph file: every line is checked against the schema first (nothing is written when one is
    wrong), then nodes and relationships merge into the store. A run that was killed is finished by running it again."""
    with _exchange() as exchange:
        report = exchange.import_file(file, wait_s=wait)
    cli_audit(get_settings()).record(local_operator(), [import_event(report)])
    nodes, rels = sum(report.nodes.values()), sum(report.relationships.values())
    typer.echo(f"imported {nodes} nodes and {rels} relationships from {report.lines} lines")
    if report.nodes.get("Chunk"):
        typer.echo("the imported chunks have no vectors yet: `graphwire db check --repair` embeds them")
