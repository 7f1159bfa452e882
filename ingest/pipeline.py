"""load -> chunk -> extract -> prune -> resolve -> enrich -> write (+ vector store), one batch of documents at a time.

`ingest_articles` is what the CLI, the tests, the demo and the benchmarks call. A document is committed when its
`content_hash` is set (last write of its batch); unchanged committed documents are skipped, changed ones have their
chunks replaced, and documents a run could not finish (killed, failed chunks) are redone by the next run.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tqdm import tqdm

from core.documents import Article, Chunk
from core.graph import Graph
from ingest.chunker import chunk_article
from ingest.extractors.base import ExtractionFailure, Extractor
from ingest.models import Extraction
from ingest.prune import prune
from ingest.report import FailureNote, IngestReport
from ingest.resolve import EntityResolver
from ingest.rows import build_rows
from ingest.state import StateStore
from ingest.writer import GraphWriter
from schema.model import GraphSchema, load_schema


class ChunkSink(Protocol):
    """The vector store side (core.chunk_store.ChunkStore): the same chunks the graph gets."""

    def upsert(self, chunks: Sequence[Chunk]) -> Any: ...

    def delete_document(self, document_id: str) -> Any: ...


@dataclass
class IngestOptions:
    chunk_size: int = 1000
    chunk_overlap: int = 150
    batch_documents: int = 64  # documents extracted and written together
    write_batch_size: int = 500  # rows per UNWIND transaction
    fuzzy_threshold: float = 92.0
    limit: int | None = None
    force: bool = False  # redo documents whose content_hash is unchanged
    progress: bool = True
    after_batch: Callable[[int], None] | None = None  # called with the number of documents committed so far


@dataclass
class _Work:
    article: Article
    chunks: list[Chunk]
    existed: bool  # the graph already had this document (update or unfinished run): stale chunks must go


def ingest_articles(
    articles: Sequence[Article],
    graph: Graph,
    extractor: Extractor,
    *,
    schema: GraphSchema | None = None,
    options: IngestOptions | None = None,
    resolver: EntityResolver | None = None,
    chunk_store: ChunkSink | None = None,
    state: StateStore | None = None,
) -> IngestReport:
    opts = options or IngestOptions()
    schema = schema or load_schema()
    started = time.perf_counter()
    report = IngestReport()
    writer = GraphWriter(graph, batch_size=opts.write_batch_size)
    if resolver is None:
        resolver = EntityResolver(opts.fuzzy_threshold)
    resolver.load(graph.read("ingest/existing_entities"))
    work = _plan(articles[: opts.limit] if opts.limit else articles, writer, state, opts, report)
    total_chunks = sum(len(w.chunks) for w in work)
    pruned: Counter[str] = Counter()
    committed = 0
    with tqdm(total=total_chunks, unit="chunk", disable=not opts.progress, dynamic_ncols=True) as bar:
        for batch in _batched(work, opts.batch_documents):
            done = _ingest_batch(batch, extractor, schema, resolver, writer, chunk_store, pruned, report)
            if state is not None and done:
                state.mark(done)
            committed += len(done)
            bar.update(sum(len(w.chunks) for w in batch))
            if opts.after_batch is not None:
                opts.after_batch(committed)
    report.pruned = dict(pruned)
    report.merged = resolver.stats.merged
    report.fuzzy_merged = resolver.stats.fuzzy
    _usage(extractor, report)
    report.elapsed_s = time.perf_counter() - started
    fill_graph_counts(graph, report)
    return report


def _plan(
    articles: Sequence[Article],
    writer: GraphWriter,
    state: StateStore | None,
    opts: IngestOptions,
    report: IngestReport,
) -> list[_Work]:
    """Decide per document: skip (unchanged or resumed), write new, or replace."""
    unique = list({a.doc_id: a for a in articles}.values())  # the last record of a repeated id wins
    report.documents_seen = len(unique)
    existing = writer.document_hashes([a.doc_id for a in unique])
    work = []
    for article in unique:
        content_hash = article.content_hash
        if not opts.force and state is not None and state.state.is_done(article.doc_id, content_hash):
            report.documents_resumed += 1
            continue
        if not opts.force and existing.get(article.doc_id) == content_hash:
            report.documents_unchanged += 1
            continue
        if existing.get(article.doc_id) not in (None, content_hash):
            report.documents_updated += 1
        chunks = chunk_article(article, opts.chunk_size, opts.chunk_overlap)
        work.append(_Work(article, chunks, existed=article.doc_id in existing))
    return work


def _ingest_batch(
    batch: list[_Work],
    extractor: Extractor,
    schema: GraphSchema,
    resolver: EntityResolver,
    writer: GraphWriter,
    chunk_store: ChunkSink | None,
    pruned: Counter[str],
    report: IngestReport,
) -> dict[str, str]:
    chunks = [c for w in batch for c in w.chunks]
    t0 = time.perf_counter()
    outcomes = extractor.extract(chunks) if chunks else []
    report.extract_s += time.perf_counter() - t0
    by_doc: dict[str, list[Extraction]] = defaultdict(list)
    failed_docs: set[str] = set()
    for chunk, outcome in zip(chunks, outcomes, strict=True):
        if isinstance(outcome, ExtractionFailure):
            failed_docs.add(chunk.document_id)
            report.failures.append(FailureNote(chunk_id=chunk.id, document_id=chunk.document_id, reason=outcome.reason))
            continue
        by_doc[chunk.document_id].append(outcome)
    extractions = []
    for doc_extractions in by_doc.values():
        for extraction in resolver.resolve_document(doc_extractions):
            clean = prune(extraction, schema, pruned)
            report.extracted_entities += len(clean.entities)
            report.extracted_relations += len(clean.relations)
            extractions.append(clean)
    t1 = time.perf_counter()
    rows = build_rows([w.article for w in batch], chunks, extractions, resolver)
    writer.write(rows)
    for w in batch:
        if w.existed:
            stale = writer.stale_chunk_ids(w.article.doc_id, keep={c.id for c in w.chunks})
            rels, ents = writer.remove_chunks(stale)
            report.chunks_removed += len(stale)
            report.relationships_removed += rels
            report.entities_removed += ents
    report.write_s += time.perf_counter() - t1
    if chunk_store is not None:
        t2 = time.perf_counter()
        for w in batch:
            if w.existed:
                chunk_store.delete_document(w.article.doc_id)
        chunk_store.upsert(chunks)
        report.vector_s += time.perf_counter() - t2
    finished = [w for w in batch if w.article.doc_id not in failed_docs]
    writer.mark_done(
        [
            {"id": w.article.doc_id, "content_hash": w.article.content_hash, "chunk_count": len(w.chunks)}
            for w in finished
        ]
    )
    report.documents_written += len(finished)
    report.chunks_written += len(chunks)
    return {w.article.doc_id: w.article.content_hash for w in finished}


def delete_documents(graph: Graph, refs: Sequence[str], chunk_store: ChunkSink | None = None) -> list[dict[str, Any]]:
    """`graphwire ingest --delete`: remove documents (by id or exact title) and what only they supported."""
    writer = GraphWriter(graph)
    results = []
    for ref in refs:
        matches = graph.read("ingest/find_documents", ref=ref)
        if not matches:
            results.append({"ref": ref, "found": False})
            continue
        for match in matches:
            chunks, rels, ents = writer.delete_document(match["id"])
            if chunk_store is not None:
                chunk_store.delete_document(match["id"])
            results.append(
                {"ref": ref, "found": True, "id": match["id"], "title": match["title"], "chunks": chunks,
                 "relationships": rels, "entities": ents}
            )  # fmt: skip
    return results


def fill_graph_counts(graph: Graph, report: IngestReport) -> None:
    rows = graph.read("ingest/count_nodes")
    report.graph_counts = {k: int(v) for k, v in rows[0].items()} if rows else {}
    report.entities_per_label = {r["label"]: r["n"] for r in graph.read("ingest/count_entities_by_label")}
    report.relationships_per_type = {r["type"]: r["n"] for r in graph.read("ingest/count_relationships_by_type")}


def _usage(extractor: Extractor, report: IngestReport) -> None:
    """LLM calls and tokens, when the extractor (or the one a cache wraps) counts them."""
    for candidate in (extractor, getattr(extractor, "inner", None)):
        usage = getattr(candidate, "usage", None)
        if usage is not None:
            report.llm_calls = getattr(usage, "calls", None)
            report.llm_tokens = getattr(usage, "total_tokens", None)
            return


def _batched(items: list[_Work], size: int) -> Iterator[list[_Work]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
