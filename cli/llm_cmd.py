"""`graphwire llm check | failures`: test the configured LLM endpoint; inspect the extraction failure log."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from graphwire.core.llm import LLMNotConfigured, probe
from graphwire.core.settings import get_settings
from graphwire.ingest.extraction_cache import ExtractionCache

app = typer.Typer(help="The LLM endpoint and the extraction cache (see docs/llm.md).", no_args_is_help=True)
console = Console()


@app.command()
def check() -> None:
    """Send two tiny requests: a chat and a forced tool call; recommend LLM_EXTRACTION_MODE."""
    settings = get_settings()
    try:
        result = probe(settings)
    except LLMNotConfigured as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None
    console.print(f"endpoint {result.base_url}  model {result.model}")
    if not result.chat_ok:
        console.print(f"[bold red]chat failed:[/] {result.error}")
        raise typer.Exit(1)
    console.print(f"chat: ok ({result.latency_ms:.0f} ms)")
    console.print(
        f"tool calling: {'ok' if result.tools_ok else 'not supported'}" + (f" ({result.error})" if result.error else "")
    )
    if result.recommended_mode != settings.llm_extraction_mode:
        console.print(
            f"[yellow]set LLM_EXTRACTION_MODE={result.recommended_mode}[/] (now {settings.llm_extraction_mode})"
        )


@app.command()
def failures(
    clear: Annotated[bool, typer.Option(help="forget every failure record (the chunks will not be retried)")] = False,
) -> None:
    """List chunks whose LLM extraction failed (what `graphwire ingest --retry-failed` re-runs)."""
    cache = ExtractionCache(get_settings().extraction_cache_path)
    records = cache.failures()
    if clear:
        for record in records:
            cache.clear_failure(record.chunk_id)
        console.print(f"cleared {len(records)} failure record(s)")
        return
    table = Table("chunk", "document", "attempts", "last failure", "reason")
    for r in records:
        table.add_row(
            r.chunk_id[:12],
            r.document_id[:48],
            str(r.attempts),
            r.failed_at.isoformat(timespec="seconds"),
            r.reason[:80],
        )
    console.print(table if records else "no failed chunks")
    console.print(f"{len(cache)} cached extraction(s) in {cache.path}")
