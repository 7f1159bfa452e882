"""load -> chunk -> extract -> prune -> resolve -> enrich -> write (+ vector store), one batch of documents at a time.

Two threads: the caller's extracts and resolves batch n+1 while a writer thread stores batch n, so a run takes about
as long as the slower of the two instead of their sum (spaCy and Neo4j each keep a core busy).

`ingest_articles` is what the CLI, the tests, the demo and the benchmarks call. A document is committed when its
`content_hash` is set (last write of its batch); unchanged committed documents are skipped, changed ones have their
chunks replaced, and documents a run could not finish (killed, failed chunks) are redone by the next run.
"""

from __future__ import annotations

import contextvars
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tqdm import tqdm

from graphwire.core import tracing
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article, Chunk
from graphwire.core.settings import default_of
from graphwire.core.stores.store_version import bump
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.consistency import ChunkSink, missing_vectors_of, restore_vectors
from graphwire.ingest.curation.rules import CurationRules, restore_facts
from graphwire.ingest.entity_lookup import StoredEntities, migrate
from graphwire.ingest.extractors.base import ExtractionFailure, Extractor
from graphwire.ingest.known_relations import KnownRelations
from graphwire.ingest.linking import DictionaryLinker
from graphwire.ingest.models import Extraction
from graphwire.ingest.pending import delete_document as delete_one
from graphwire.ingest.pending import finish_pending_deletes, sweep_orphans
from graphwire.ingest.progress import ExtractionProgress, counted_parts
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.ingest.prune import prune
from graphwire.ingest.report import FailureNote, IngestReport
from graphwire.ingest.resolve import EntityResolver
from graphwire.ingest.rows import GraphRows, build_rows
from graphwire.ingest.state import StateStore
from graphwire.ingest.writer import GraphWriter
from graphwire.schema.model import GraphSchema

T = TypeVar("T")


@dataclass
class IngestOptions:
    """A run's options; the defaults are the settings' (`ingest_options(settings)` takes a process's)."""

    chunk_size: int = default_of("chunk_size")
    chunk_overlap: int = default_of("chunk_overlap")
    batch_documents: int = 64  # documents extracted and written together
    write_batch_size: int = default_of("ingest_batch_size")  # rows per UNWIND transaction
    write_threads: int = default_of("ingest_write_threads")  # concurrent transactions for CREATE statements
    fuzzy_threshold: float = default_of("fuzzy_merge_threshold")
    provenance_cap: int = default_of("provenance_cap")  # chunk ids an inferred relationship keeps
    limit: int | None = None
    force: bool = False  # redo documents whose content_hash is unchanged
    progress: bool = True
    after_batch: Callable[[IngestReport], None] | None = None  # called with the report after each batch
    link_names: bool = True  # the dictionary pass (ingest/linking.py) over chunks not linked yet


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
    schema: GraphSchema,
    options: IngestOptions | None = None,
    resolver: EntityResolver | None = None,
    chunk_store: ChunkSink | None = None,
    state: StateStore | None = None,
) -> IngestReport:
    opts = options or IngestOptions()
    started = time.perf_counter()
    report = IngestReport()
    caps = ProvenanceCaps.capping(schema, opts.provenance_cap)
    writer = GraphWriter(graph, batch_size=opts.write_batch_size, threads=opts.write_threads, provenance=caps)
    report.deletes_finished = len(finish_pending_deletes(writer, chunk_store))  # what a killed run left half done
    resolver = resolver or EntityResolver(opts.fuzzy_threshold, schema=schema)
    stored = StoredEntities(graph)
    migrate(graph, schema.roles)
    if resolver.source is None and stored.count():  # an empty graph has nothing to read
        resolver.source = stored
    rules = CurationRules.load(graph, schema)  # what people decided by hand (ingest/curation/rules.py)
    resolver.prefetch_keys(rules.targets())
    known = KnownRelations(
        resolver.stored.__contains__, lambda keys: graph.read("ingest/relation_keys_from", keys=keys)
    )
    work, unchanged = _plan(limited(articles, opts), writer, state, opts, report, extractor.name)
    if chunk_store is not None and unchanged:  # the vector store may have lost what the graph still has
        report.vectors_restored = restore_vectors(graph, chunk_store, missing_vectors_of(graph, chunk_store, unchanged))
    with (
        tqdm(
            total=sum(len(w.chunks) for w in work),
            unit="chunk",
            desc="extract",
            disable=not opts.progress,
            dynamic_ncols=True,
        ) as bar,
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphwire-writer") as write_thread,
    ):
        progress = ExtractionProgress(bar, extractor)
        run = _Run(extractor, schema, resolver, known, writer, chunk_store, report, progress, rules)
        in_flight: Future[_Written] | None = None
        for batch in batched(work, opts.batch_documents):
            with tracing.span("ingest extract", {"graphwire.documents": len(batch)}):
                prepared = run.prepare(batch)  # extraction of this batch overlaps the write of the previous one
            if in_flight is not None:
                run.finish(in_flight.result(), state, opts)
            # the write's spans (statements, embeddings) under one span of this trace, in the writer thread
            in_flight = write_thread.submit(contextvars.copy_context().run, _traced_store, run, len(batch), prepared)
        if in_flight is not None:
            run.finish(in_flight.result(), state, opts)
    report.facts_restored = restore_facts(graph, rules)
    if opts.link_names:
        t_link = time.perf_counter()
        linked = DictionaryLinker(graph, batch_size=opts.write_batch_size, stored=stored, rules=rules).run()
        report.mentions_linked = linked.mentions_linked
        report.link_s = time.perf_counter() - t_link
    report.entities_removed = sweep_orphans(writer)
    bump(graph)
    report.pruned = dict(run.pruned)
    report.entities_read = stored.rows_read
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
    extractor_name: str,
) -> tuple[list[_Work], list[str]]:
    """Decide per document: skip (unchanged or resumed), write new, or replace. Returns the work and the ids of the
    documents skipped as unchanged. Of several records with one id the first is kept and the id reported. An
    unchanged document another extractor wrote ("offline" before "llm:<model>") is extracted again."""
    unique, duplicates = first_of_each_id(articles)
    report.duplicate_ids.extend(duplicates)
    report.documents_seen = len(unique)
    existing = writer.document_hashes(list(unique))
    written_by = writer.document_extractors([i for i in unique if i in existing])
    work, unchanged = [], []
    for article in unique.values():
        content_hash = article.content_hash
        if not opts.force and state is not None and state.state.is_done(article.doc_id, content_hash):
            report.documents_resumed += 1
            continue
        other_extractor = written_by.get(article.doc_id) not in (None, extractor_name)
        if not opts.force and existing.get(article.doc_id) == content_hash and not other_extractor:
            report.documents_unchanged += 1
            unchanged.append(article.doc_id)
            continue
        if existing.get(article.doc_id) not in (None, content_hash):
            report.documents_updated += 1
        elif other_extractor and not opts.force:
            report.documents_reextracted += 1
        chunks = chunk_article(article, opts.chunk_size, opts.chunk_overlap)
        work.append(_Work(article, chunks, existed=article.doc_id in existing))
    return work, unchanged


@dataclass
class _Prepared:
    """A batch extracted and resolved in the main thread, ready for the writer thread."""

    batch: list[_Work]
    chunks: list[Chunk]
    rows: GraphRows
    failed_docs: set[str]


@dataclass
class _Written:
    """What the writer thread did with one batch."""

    prepared: _Prepared
    done: dict[str, str]  # committed document id -> content hash
    write_s: float
    vector_s: float
    chunks_removed: int
    relationships_removed: int


@dataclass
class _Run:
    """One ingestion run. `prepare` (extract, prune, resolve, build rows) runs in the caller's thread and owns the
    resolver; `store` (Neo4j, vector store, commit marker) runs in the writer thread and touches nothing else."""

    extractor: Extractor
    schema: GraphSchema
    resolver: EntityResolver
    known: KnownRelations
    writer: GraphWriter
    chunk_store: ChunkSink | None
    report: IngestReport
    progress: ExtractionProgress
    rules: CurationRules
    pruned: Counter[str] = field(default_factory=Counter)

    def prepare(self, batch: list[_Work]) -> _Prepared:
        chunks = [c for w in batch for c in w.chunks]
        t0 = time.perf_counter()
        outcomes = self.progress.extract(chunks) if chunks else []
        self.report.extract_s += time.perf_counter() - t0
        by_doc: dict[str, list[Extraction]] = defaultdict(list)
        failed_docs: set[str] = set()
        for chunk, outcome in zip(chunks, outcomes, strict=True):
            if isinstance(outcome, ExtractionFailure):
                failed_docs.add(chunk.document_id)
                note = FailureNote(chunk_id=chunk.id, document_id=chunk.document_id, reason=outcome.reason)
                self.report.failures.append(note)
                continue
            by_doc[chunk.document_id].append(outcome)
        extractions = []
        for doc_extractions in by_doc.values():
            for extraction in self.resolver.resolve_document(doc_extractions):
                clean = prune(extraction, self.schema, self.pruned)
                self.report.extracted_entities += len(clean.entities)
                self.report.extracted_relations += len(clean.relations)
                extractions.append(clean)
        self.resolver.prefetch(_names(extractions))
        stored = {w.article.doc_id for w in batch if w.existed}
        rows = build_rows([w.article for w in batch], chunks, extractions, self.resolver, self.known, stored,
                          provenance=self.writer.provenance, rules=self.rules)  # fmt: skip
        return _Prepared(batch, chunks, rows, failed_docs)

    def store(self, prepared: _Prepared) -> _Written:
        t0 = time.perf_counter()
        self.writer.write(prepared.rows)
        removed_chunks, removed_rels = 0, 0
        for w in prepared.batch:
            if w.existed:  # entities only the stale chunks mentioned are marked, and swept at the end of the run
                stale = self.writer.stale_chunk_ids(w.article.doc_id, keep={c.id for c in w.chunks})
                removed_chunks += len(stale)
                removed_rels += self.writer.remove_chunks(stale)
        write_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        if self.chunk_store is not None:
            for w in prepared.batch:
                if w.existed:
                    self.chunk_store.delete_document(w.article.doc_id)
            self.chunk_store.upsert(prepared.chunks)
        vector_s = time.perf_counter() - t1
        finished = [w for w in prepared.batch if w.article.doc_id not in prepared.failed_docs]
        self.writer.mark_done(
            [{"id": w.article.doc_id, "content_hash": w.article.content_hash, "chunk_count": len(w.chunks),
              "extractor": self.extractor.name} for w in finished]
        )  # fmt: skip
        done = {w.article.doc_id: w.article.content_hash for w in finished}
        return _Written(prepared, done, write_s, vector_s, removed_chunks, removed_rels)

    def finish(self, written: _Written, state: StateStore | None, opts: IngestOptions) -> None:
        """Account for a stored batch in the caller's thread."""
        report = self.report
        report.write_s += written.write_s
        report.vector_s += written.vector_s
        report.chunks_removed += written.chunks_removed
        report.relationships_removed += written.relationships_removed
        report.documents_written += len(written.done)
        report.chunks_written += len(written.prepared.chunks)
        if state is not None and written.done:
            state.mark(written.done)
        if opts.after_batch is not None:
            opts.after_batch(report)


def delete_documents(
    graph: Graph, refs: Sequence[str], chunk_store: ChunkSink | None = None, *, provenance: ProvenanceCaps
) -> list[dict[str, Any]]:
    """`graphwire ingest --delete`: remove documents (by id or exact title) and what only they supported.

    Deletes a killed run left unfinished are finished first; a ref naming one of them counts as found."""
    writer = GraphWriter(graph, provenance=provenance)
    finished = finish_pending_deletes(writer, chunk_store)
    results = [{"ref": None, "found": True, "resumed": True, **d.model_dump()} for d in finished]
    for ref in refs:
        matches = graph.read("ingest/find_documents", ref=ref)
        if not matches:
            results.append({"ref": ref, "found": any(ref in (d.id, d.title) for d in finished)})
            continue
        for match in matches:
            deleted = delete_one(writer, match["id"], match["title"], chunk_store)
            results.append({"ref": ref, "found": True, **deleted.model_dump()})
    bump(graph)
    return results


def delete_document(
    graph: Graph, document_id: str, chunk_store: ChunkSink | None = None, *, provenance: ProvenanceCaps
) -> dict[str, Any] | None:
    """Remove one document by id (the API's delete); None when the graph has no such document."""
    writer = GraphWriter(graph, provenance=provenance)
    finish_pending_deletes(writer, chunk_store)
    hashes = writer.document_hashes([document_id])
    if document_id not in hashes:
        return None
    title = next((r["title"] for r in graph.read("ingest/find_documents", ref=document_id)), None)
    deleted = delete_one(writer, document_id, title, chunk_store)
    bump(graph)
    return deleted.model_dump()


def fill_graph_counts(graph: Graph, report: IngestReport) -> None:
    rows = graph.read("ingest/count_nodes")
    report.graph_counts = {k: int(v) for k, v in rows[0].items()} if rows else {}
    if graph.read("store/shared_workspaces")[0]["shared"]:  # the count store counts every workspace: scan this one
        labels = graph.read("ingest/count_entities_by_label_scan")
        types = graph.read("ingest/count_relationships_by_type_scan")
    else:
        labels = graph.read("ingest/count_entities_by_label")
        types = graph.read("ingest/count_relationships_by_type")
    report.entities_per_label = {r["label"]: r["n"] for r in labels}
    report.relationships_per_type = {r["type"]: r["n"] for r in types}


def _usage(extractor: Extractor, report: IngestReport) -> None:
    """LLM calls and tokens, and what the LLM extractor retried, repaired and dropped (by reason), when the extractor
    (or the one a cache wraps) counts them."""
    for part in counted_parts(extractor):
        usage = getattr(part, "usage", None)
        if usage is not None and report.llm_calls is None:
            report.llm_calls = getattr(usage, "calls", None)
            report.llm_tokens = getattr(usage, "total_tokens", None)
        totals = getattr(getattr(part, "stats", None), "totals", None)
        if callable(totals):
            report.extraction.update(totals())


def _names(extractions: Sequence[Extraction]) -> Iterator[tuple[str, str]]:
    """Every (surface, label) the rows of these extractions resolve: entities, their aliases, relation ends."""
    for extraction in extractions:
        for entity in extraction.entities:
            yield entity.name, entity.label
            for alias in entity.aliases:
                yield alias, entity.label
        for rel in extraction.relations:
            yield rel.source, rel.source_label
            yield rel.target, rel.target_label


def _traced_store(run: _Run, documents: int, prepared: _Prepared) -> _Written:
    with tracing.span("ingest write", {"graphwire.documents": documents}):
        return run.store(prepared)


def limited(articles: Sequence[Article], opts: IngestOptions) -> Sequence[Article]:
    """The records a run reads: the first `limit` of them when it is set."""
    return articles[: opts.limit] if opts.limit else articles


def first_of_each_id(articles: Sequence[Article]) -> tuple[dict[str, Article], list[str]]:
    """The first record of each id, in order (what a run writes), and the ids seen again."""
    unique: dict[str, Article] = {}
    duplicates: list[str] = []
    for article in articles:
        if article.doc_id in unique:
            duplicates.append(article.doc_id)
        else:
            unique[article.doc_id] = article
    return unique, duplicates


def batched(items: Sequence[T], size: int) -> Iterator[list[T]]:
    """`size` items at a time (`batch_documents` documents a batch: extracted and written together)."""
    step = max(1, size)
    for start in range(0, len(items), step):
        yield list(items[start : start + step])
