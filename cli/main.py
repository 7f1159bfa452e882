"""`graphwire`: a thin command line over the same functions the API and the harness call."""

from __future__ import annotations

import typer

from graphwire.cli import (
    db_cmd,
    demo_cmd,
    embeddings_cmd,
    eval_cmd,
    ingest_cmd,
    llm_cmd,
    neo4j_cmd,
    query_cmd,
    serve_cmd,
)

app = typer.Typer(help="graphwire: graph-RAG for news-like corpora.", no_args_is_help=True)

# Sub-commands: one line each (import the module above).
app.add_typer(neo4j_cmd.app, name="neo4j")
app.add_typer(db_cmd.app, name="db")
app.add_typer(embeddings_cmd.app, name="embeddings")
app.command("serve")(serve_cmd.serve)
app.command("ingest")(ingest_cmd.ingest)
app.add_typer(llm_cmd.app, name="llm")
app.command("eval")(eval_cmd.eval_command)
app.command("ask")(query_cmd.ask)
app.command("demo")(demo_cmd.demo)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
