"""`graphwire`: a thin command line over the same functions the API and the harness call."""

from __future__ import annotations

import typer

from cli import ingest_cmd

app = typer.Typer(help="graphwire: graph-RAG for news-like corpora.", no_args_is_help=True)
app.command("ingest")(ingest_cmd.ingest)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
