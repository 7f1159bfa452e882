"""`graphwire ask QUESTION`: retrieve and answer from the command line, through the same registry as the API."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from graphwire.cli.common import NEO4J_ERRORS, check_top_k, fail, neo4j_error_line, open_graph_or_exit
from graphwire.core.access import EVERYONE, AccessError, Reader, validate_access
from graphwire.core.clients.chroma import open_client
from graphwire.core.settings import get_settings
from graphwire.retrieval.access import retrieve_as
from graphwire.retrieval.models import Answer, RetrievalResult
from graphwire.retrieval.registry import (
    DEFAULT_MODE,
    AnswererName,
    RetrievalContext,
    UnknownModeError,
)

console = Console()


def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    mode: Annotated[str, typer.Option(help="Retrieval mode (joint, graph, vector, bm25, ...).")] = DEFAULT_MODE,
    answerer: Annotated[AnswererName, typer.Option(help="auto: the LLM when configured.")] = AnswererName.AUTO,
    top_k: Annotated[int, typer.Option(min=1, help="Chunks to retrieve (at most MAX_TOP_K).")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")] = False,
    reader: Annotated[
        str | None,
        typer.Option(
            "--reader",
            help="Answer as a caller with these groups or principal names (comma-separated) would be: only from "
            "documents they may read (docs/security.md). Without it: from every document.",
        ),
    ] = None,
) -> None:
    """Answer one question: matched entities, KEY/BRIDGE/DIRECT facts, citations and per-stage timings."""
    settings = get_settings()
    check_top_k(top_k, settings)
    who = _reader(reader)
    graph = open_graph_or_exit(settings)
    try:
        ctx = RetrievalContext(settings, graph=lambda: graph, chroma=lambda: open_client(settings))
        result = retrieve_as(ctx, mode, question, top_k, who)
        answer = ctx.answerer(answerer).answer(question, result)
    except UnknownModeError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        graph.close()
    if as_json:
        payload = {"answer": answer.model_dump(mode="json"), "retrieval": result.model_dump(mode="json")}
        typer.echo(json.dumps(payload, indent=2))
    else:
        _print(question, result, answer)


def _reader(names: str | None) -> Reader:
    """`--reader`'s names as a reader (EVERYONE without it); a bad name ends the command with a one-line message."""
    if names is None:
        return EVERYONE
    try:
        return Reader.of(validate_access([n.strip() for n in names.split(",") if n.strip()]) or [])
    except AccessError as exc:
        raise fail(f"--reader: {exc}") from None


def _print(question: str, result: RetrievalResult, answer: Answer) -> None:
    console.print(f"[bold]Q:[/] {question}")
    console.print(f"[bold green]A:[/] {answer.text}  [dim]({answer.answerer})[/]")
    if answer.llm_error is not None:
        console.print(f"   [yellow]the LLM failed ({answer.llm_error}): this abstention is not the evidence's[/]")
    for sentence in answer.check.sentences if answer.check is not None else []:
        if not sentence.supported:
            lacks = f": no evidence for {', '.join(sentence.missing)}" if sentence.missing else ""
            console.print(f"   [red]unsupported[/] (score {sentence.score:.2f}{lacks}): {sentence.text}", markup=True)
    for citation in answer.citations:
        console.print(
            f"   [dim]cites[/] {citation.title} ({citation.publication or '?'}, {citation.published_at or '?'})"
        )
    if result.entities:
        matched = ", ".join(f"{e.mention} -> {e.name} [{e.label}, {e.tier.value}]" for e in result.entities)
        console.print(f"[bold]entities:[/] {matched}")
    for fact in result.facts[:8]:
        console.print(f"   {fact.render()}", markup=False)
    timings = ", ".join(f"{stage} {ms:.1f}" for stage, ms in result.timings_ms.items())
    console.print(f"[dim]ms: {timings}[/]")
