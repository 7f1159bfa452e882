"""`graphwire ingest PATH|URL`: build (or update) the graph and the vector store from a corpus (files, a folder or
a URL); `--delete DOC` removes."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit, urlunsplit

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from graphwire.app.audit_events import cli_audit, local_operator
from graphwire.cli.common import NEO4J_ERRORS, fail, neo4j_error_line, open_graph_or_exit
from graphwire.core.auth.audit import AuditTrail, Event
from graphwire.core.clients.graph import Graph
from graphwire.core.schema import configured_schema
from graphwire.core.settings import Settings, get_settings
from graphwire.core.stores.bootstrap import apply_schema
from graphwire.core.stores.store_lock import StoreBusyError
from graphwire.core.stores.write_session import WriteSession
from graphwire.ingest import service
from graphwire.ingest.formats.base import LoadOptions
from graphwire.ingest.formats.fetch import is_url
from graphwire.ingest.loaders import load_articles, printable
from graphwire.ingest.pipeline import ChunkSink, delete_documents
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.ingest.report import IngestReport
from graphwire.ingest.service import ExtractorChoice

console = Console()


def quiet_driver_notifications() -> None:
    # "property key does not exist" on a fresh database is expected noise during the first ingest.
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    # A lost server is reported in one line of ours (lost_neo4j_line); the driver's own connection errors repeat it.
    logging.getLogger("neo4j").setLevel(logging.CRITICAL)


@dataclass(frozen=True)
class IngestRequest:
    """What `graphwire ingest PATH` was asked to do, from its options."""

    path: Path | str  # a file or folder, or an http(s) URL to fetch
    extractor: ExtractorChoice
    limit: int | None  # only the first N documents
    resume: bool  # skip documents a previous run of this input finished
    retry_failed: bool  # only documents with failed chunks (LLM)
    force: bool  # re-extract documents even when unchanged
    batch_docs: int  # documents per extract/write batch
    n_process: int  # offline extractor worker processes
    gazetteer: Path | None  # YAML of known entities (None: gazetteer.yaml beside the input, if any)
    ray: str | None = None  # extract and embed on this Ray cluster first ("auto", "local" or an address)
    ray_partitions: int = 0  # tasks of that job (0: four per CPU of the cluster)


DEFAULT_PROCESSES = min(2, os.cpu_count() or 1)  # spaCy NER is the slowest part of offline ingestion


def ingest(
    source: Annotated[
        str | None,
        typer.Argument(
            metavar="PATH|URL",
            help="corpus.json list, .jsonl, .txt/.md, PDF, DOCX or HTML file, a folder mixing them, or an http(s) URL",
        ),
    ] = None,
    extractor: Annotated[
        ExtractorChoice, typer.Option(help="offline (spaCy + patterns), llm, or langchain (the langchain extra)")
    ] = ExtractorChoice.AUTO,
    limit: Annotated[int | None, typer.Option(help="ingest only the first N documents")] = None,
    resume: Annotated[bool, typer.Option(help="skip documents a previous run of this input finished")] = False,
    retry_failed: Annotated[bool, typer.Option(help="re-run only documents with failed chunks (LLM)")] = False,
    delete: Annotated[list[str] | None, typer.Option(help="remove a document by id or exact title")] = None,
    vectors: Annotated[bool, typer.Option(help="also write the chunks to the vector store")] = True,
    force: Annotated[bool, typer.Option(help="re-extract documents even when unchanged")] = False,
    batch_docs: Annotated[int, typer.Option(help="documents per extract/write batch")] = 64,
    n_process: Annotated[
        int, typer.Option(help="offline extractor worker processes (used after the first 1,000 chunks of a run)")
    ] = DEFAULT_PROCESSES,
    gazetteer: Annotated[
        Path | None, typer.Option(help="YAML of known entities (default: gazetteer.yaml beside PATH, if any)")
    ] = None,
    wait: Annotated[
        float, typer.Option(help="seconds to wait while another process writes the store (default: refuse at once)")
    ] = 0.0,
    ray: Annotated[
        str | None,
        typer.Option(
            help="extract and embed on a Ray cluster first (the ray extra): auto (the one `ray start` runs here), "
            "local (a cluster for this run only) or ray://host:port; then write here as usual"
        ),
    ] = None,
    ray_partitions: Annotated[int, typer.Option(help="tasks of the Ray job (0: four per CPU of the cluster)")] = 0,
) -> None:
    """Load, chunk, extract, prune, resolve, enrich and write a corpus into Neo4j (and ChromaDB).

    Exit codes: 0 done; 1 error (Neo4j, usage, a --delete naming no document, another writer holding the store);
    2 extraction failures; 3 records skipped at load (bad or duplicate), the rest ingested."""
    quiet_driver_notifications()
    path: Path | str | None = source if source is None or is_url(source) else Path(source)
    if isinstance(path, Path) and not path.exists():
        raise fail(f"no such file or folder: {path} (give a file, a folder of documents, or an http(s) URL)")
    settings = get_settings()
    graph = open_graph_or_exit(settings)
    session = WriteSession(settings, lambda: graph, f"graphwire ingest {'--delete' if delete else path}")
    try:
        session.open(wait_s=wait)
    except StoreBusyError as exc:
        graph.close()
        raise fail(str(exc)) from None
    except NEO4J_ERRORS as exc:
        graph.close()
        raise fail(neo4j_error_line(settings, exc)) from None
    lost: BaseException | None = None
    try:
        apply_schema(graph, migrate=False)  # open_graph_or_exit moved a pre-workspace store
        store = chunk_store(settings) if vectors else None
        if delete:
            caps = ProvenanceCaps.of(configured_schema(settings), settings)
            _run_delete(graph, delete, store, caps, cli_audit(settings))
            return
        if path is None:
            raise typer.BadParameter("give a PATH to ingest, or --delete DOC")
        request = IngestRequest(
            path=path,
            extractor=extractor,
            limit=limit,
            resume=resume,
            retry_failed=retry_failed,
            force=force,
            batch_docs=batch_docs,
            n_process=n_process,
            gazetteer=gazetteer,
            ray=ray,
            ray_partitions=ray_partitions,
        )
        try:
            report = _run_ingest(request, graph, settings, store)
        except NEO4J_ERRORS as exc:
            lost = exc
        else:
            cli_audit(settings).record(local_operator(), [_ingest_event(path, report)])
            print_summary(report)
    finally:
        session.close()
        graph.close()
    if lost is not None:  # printed after the session closed, so the driver's own lines come before it, not after
        raise fail(lost_neo4j_line(settings, lost)) from None
    if report.failures:
        raise typer.Exit(code=2)
    if report.load_errors or report.duplicate_ids:
        raise typer.Exit(code=3)


def lost_neo4j_line(settings: Settings, exc: BaseException) -> str:
    """Neo4j failed in the middle of a run: what was committed stays, --resume continues from there."""
    return (
        f"{neo4j_error_line(settings, exc)}; the documents committed so far are kept: once Neo4j answers again, "
        "re-run the same command with --resume to continue"
    )


def _run_ingest(request: IngestRequest, graph: Graph, settings: Settings, store: ChunkSink | None) -> IngestReport:
    path = request.path
    try:
        loaded = load_articles(path, LoadOptions.from_settings(settings))
    except ValueError as exc:  # an unreadable file or an unsupported format: nothing was written
        raise fail(str(exc)) from None
    for error in loaded.errors:
        title = f" {printable(error.title)!r}" if error.title else ""
        console.print(f"[yellow]skipped[/] {escape(error.location)}{escape(title)}: {escape(error.reason)}")
    gazetteer_file = request.gazetteer or (default_gazetteer(path) if isinstance(path, Path) else None)
    options = service.ingest_options(
        settings, batch_documents=request.batch_docs, limit=request.limit,
        force=request.force or request.retry_failed, progress=True,
    )  # fmt: skip
    try:
        run = service.IngestRun(
            loaded.articles, settings, options=options, extractor=request.extractor, gazetteer_file=gazetteer_file,
            n_process=request.n_process, cache_offline=request.ray is not None,
        )  # fmt: skip
    except service.ExtractorUnavailableError as exc:
        raise typer.BadParameter(str(exc)) from exc
    if gazetteer_file is not None:
        console.print(f"gazetteer: {gazetteer_file} ({len(run.gazetteer.known)} known entities)")
    if request.retry_failed:
        failed_docs = _failed_documents(run)
        run.articles = [a for a in run.articles if a.doc_id in failed_docs]
        console.print(f"retrying {len(run.articles)} documents with failed chunks")
    state = run.state_store(str(path.resolve()) if isinstance(path, Path) else path)
    if request.resume:
        state.load()
    else:
        state.reset()
    if request.ray is not None:
        store = _prepare_on_ray(run, request, settings, store)
    report = run.run(graph, chunk_store=store, state=state)
    report.load_errors = loaded.errors
    return report


def _prepare_on_ray(
    run: service.IngestRun, request: IngestRequest, settings: Settings, store: ChunkSink | None
) -> ChunkSink | None:
    """Extract and embed on Ray into the caches; the chunk store then reads the vectors the job computed."""
    try:
        from graphwire.ingest.distributed import cached_chunk_store, prepare_on_ray
    except ImportError as exc:
        raise fail(f"--ray needs the ray extra: pip install 'graphwire[ray]' ({exc})") from None
    address = None if request.ray == "local" else request.ray
    try:
        prepared = prepare_on_ray(run, address=address, partitions=request.ray_partitions, vectors=store is not None)
    except ConnectionError as exc:
        raise fail(f"--ray {request.ray}: no Ray cluster there ({exc})") from None
    console.print(
        f"prepared on Ray: {prepared.chunks} chunks in {prepared.partitions} tasks on {len(prepared.workers)} "
        f"worker processes, {prepared.seconds:.1f} s ({prepared.extractions} extractions, {prepared.vectors} vectors)"
    )
    return cached_chunk_store(settings) if store is not None else None


def default_gazetteer(path: Path) -> Path | None:
    """`gazetteer.yaml` in the input folder (or beside the input file), when there is one."""
    candidate = (path if path.is_dir() else path.parent) / "gazetteer.yaml"
    return candidate if candidate.is_file() else None


def _failed_documents(run: service.IngestRun) -> set[str]:
    cache = getattr(run.extractor, "cache", None)
    if cache is None:
        run.close()
        raise typer.BadParameter("--retry-failed applies to the LLM extractor (its failures are recorded)")
    return {f.document_id for f in cache.failures()}


def chunk_store(settings: Settings) -> ChunkSink:
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    from graphwire.core.clients.chunk_store import ChunkStore

    return ChunkStore.from_settings(settings)


def _ingest_event(path: Path | str, report: IngestReport) -> Event:
    """One audit event per `graphwire ingest` run (a corpus may hold millions of documents): what was read (a URL
    without its query, which may hold a token) and the counts."""
    source = str(path)
    if is_url(source):
        parts = urlsplit(source)
        source = urlunsplit((parts.scheme, parts.hostname or "", parts.path, "", ""))
    counts = {"seen": report.documents_seen, "written": report.documents_written,
              "updated": report.documents_updated, "unchanged": report.documents_unchanged,
              "chunks": report.chunks_written, "failures": len(report.failures),
              "load_errors": len(report.load_errors)}  # fmt: skip
    return "document.ingest", source, counts


def _run_delete(
    graph: Graph, refs: list[str], store: ChunkSink | None, provenance: ProvenanceCaps, audit: AuditTrail
) -> None:
    unknown = []
    for result in delete_documents(graph, refs, store, provenance=provenance):
        if not result["found"]:
            unknown.append(result["ref"])
            continue
        if result.get("id") is None:
            continue  # the ref named a delete an earlier run left unfinished, finished above
        counts = {key: result.get(key) for key in ("chunks", "relationships", "entities")}
        audit.record(local_operator(), [("document.delete", result["id"], counts)])
        done = "finished the interrupted delete of" if result.get("resumed") else "deleted"
        console.print(
            f"{done} {escape(result['id'])} ({escape(printable(result['title'] or ''))}): {result['chunks']} chunks, "
            f"{result['relationships']} relationships and {result['entities']} entities no longer supported"
        )
    if unknown:
        names = ", ".join(repr(printable(ref)) for ref in unknown)
        raise fail(f"no document with id or exact title {names} (nothing else was deleted for it)")


def _rate(report: IngestReport) -> str:
    """chunks/s, or s/chunk when slower than one a second (an LLM extractor on a CPU)."""
    rate = report.chunks_per_s
    return f"{rate:.0f} chunks/s" if rate >= 1 or not rate else f"{1 / rate:.1f} s/chunk"


def _extractor_dropped(report: IngestReport) -> int:
    """What the LLM extractor itself dropped before the schema pruner saw it (off-schema, not in the chunk)."""
    return sum(n for k, n in report.extraction.items() if k.startswith(("entities dropped", "relationships dropped")))


def print_summary(report: IngestReport) -> None:
    table = Table(title="graphwire ingest", show_header=True)
    table.add_column("what")
    table.add_column("count", justify="right")
    rows: list[tuple[str, Any]] = [
        ("documents seen", report.documents_seen),
        ("documents written", report.documents_written),
        ("  of which updated", report.documents_updated),
        ("  of which re-extracted (another extractor wrote them)", report.documents_reextracted),
        ("documents unchanged (skipped)", report.documents_unchanged),
        ("documents resumed (skipped)", report.documents_resumed),
        ("chunks written", report.chunks_written),
        ("stale chunks removed", report.chunks_removed),
        ("records skipped at load", len(report.load_errors)),
        ("duplicate ids (first kept)", len(report.duplicate_ids)),
        ("vectors restored from the graph", report.vectors_restored),
        ("interrupted deletes finished", report.deletes_finished),
        ("extracted entities / relations", f"{report.extracted_entities} / {report.extracted_relations}"),
        ("pruned (off-schema; for the LLM also ungrounded)", sum(report.pruned.values()) + _extractor_dropped(report)),
        ("merged by resolution (fuzzy)", f"{report.merged} ({report.fuzzy_merged})"),
        ("stored entities read", report.entities_read),
        ("extraction failures", len(report.failures)),
        ("elapsed", f"{report.elapsed_s:.1f} s ({_rate(report)})"),
        ("  extract / write / vectors", f"{report.extract_s:.1f} / {report.write_s:.1f} / {report.vector_s:.1f} s"),
        ("mentions linked by name", f"{report.mentions_linked} ({report.link_s:.1f} s)"),
    ]
    if report.llm_calls is not None:
        rows.append(("LLM calls / tokens", f"{report.llm_calls} / {report.llm_tokens}"))
    rows += [(f"graph: {k}", v) for k, v in report.graph_counts.items()]
    rows += [(f"entities: {k}", v) for k, v in report.entities_per_label.items()]
    rows += [(f"relationships: {k}", v) for k, v in report.relationships_per_type.items()]
    rows += [(f"pruned: {k}", v) for k, v in report.pruned.items()]
    rows += [(f"LLM extractor: {k}", v) for k, v in report.extraction.items()]
    for what, count in rows:
        table.add_row(what, str(count))
    console.print(table)
    for failure in report.failures[:10]:
        console.print(f"[red]failed[/] chunk {failure.chunk_id} of {failure.document_id}: {failure.reason}")
