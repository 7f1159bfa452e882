"""The one ingest door (`IngestRun`) that `graphwire ingest`, the API's document jobs and the Python API share
around `ingest_articles`: the extractor chosen from settings, the gazetteer and resolver built from the documents'
outlets, and the options taken from settings.

    report = ingest_loaded(articles, graph, settings, chunk_store=store, options=ingest_options(settings))
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from graphwire.core import metrics, tracing
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.base import Extractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.pipeline import ChunkSink, IngestOptions, ingest_articles
from graphwire.ingest.report import IngestReport
from graphwire.ingest.resolve import EntityResolver
from graphwire.ingest.state import StateStore
from graphwire.schema.model import GraphSchema, load_schema


class ExtractorChoice(StrEnum):
    AUTO = "auto"  # llm when an LLM is configured, else offline
    OFFLINE = "offline"
    LLM = "llm"
    LANGCHAIN = "langchain"  # LangChain's LLMGraphTransformer (the `langchain` extra) at the same endpoint


class ExtractorUnavailableError(ValueError):
    """A model-backed extractor was asked for, but no LLM is configured (or its extra is not installed)."""


def build_extractor(
    choice: ExtractorChoice,
    settings: Settings,
    schema: GraphSchema,
    gazetteer: Gazetteer,
    n_process: int = 1,
    *,
    cache_offline: bool = False,
) -> Extractor:
    """The offline extractor, or a model-backed one (built-in or LangChain) behind the extraction cache.
    `cache_offline`: the offline extractor behind the cache too (a distributed ingest fills it ahead of the write)."""
    from graphwire.ingest.extraction_cache import CachedExtractor

    use_llm = choice in (ExtractorChoice.LLM, ExtractorChoice.LANGCHAIN) or (
        choice == ExtractorChoice.AUTO and settings.llm_configured
    )
    if not use_llm:
        from graphwire.ingest.extractors.offline import OfflineExtractor

        offline = OfflineExtractor(schema, gazetteer, n_process=n_process)
        if cache_offline:
            return CachedExtractor(offline, settings.extraction_cache_path, schema_fingerprint=schema.fingerprint)
        return offline
    if not settings.llm_configured:
        raise ExtractorUnavailableError(f"--extractor {choice.value} needs LLM_BASE_URL and LLM_MODEL")
    inner: Extractor
    if choice == ExtractorChoice.LANGCHAIN:
        try:
            from graphwire.ingest.extractors.langchain_graph import LangChainExtractor
        except ImportError as exc:
            raise ExtractorUnavailableError(
                f"--extractor langchain needs the langchain extra: pip install 'graphwire[langchain]' ({exc})"
            ) from None
        inner = LangChainExtractor(settings, schema)
    else:
        from graphwire.ingest.extractors.llm import LLMExtractor

        inner = LLMExtractor(settings, schema)
    return CachedExtractor(inner, settings.extraction_cache_path, schema_fingerprint=schema.fingerprint)


def ingest_options(settings: Settings, **overrides: Any) -> IngestOptions:
    """IngestOptions from settings (chunking, write batches, resolution threshold), with per-run overrides."""
    options = IngestOptions(
        chunk_size=settings.chunk_size,
        chunk_overlap=settings.chunk_overlap,
        write_batch_size=settings.ingest_batch_size,
        write_threads=settings.ingest_write_threads,
        fuzzy_threshold=settings.fuzzy_merge_threshold,
        provenance_cap=settings.provenance_cap,
    )
    for name, value in overrides.items():
        setattr(options, name, value)
    return options


class IngestRun:
    """The one door to an ingest: everything a run needs, built from settings for these articles (the schema, the
    gazetteer from their outlets and an optional file, the extractor, the resolver), exposed before it runs so a
    surface can narrow the articles (`--retry-failed` asks the extractor) or key a state store without assembling
    any of it. The CLI, the API's jobs and the Python API all ingest through it.

        run = IngestRun(articles, settings, options=ingest_options(settings))
        report = run.run(graph, chunk_store=store, state=run.state_store("corpus.json"))
    """

    def __init__(
        self,
        articles: Sequence[Article],
        settings: Settings,
        *,
        options: IngestOptions,
        extractor: ExtractorChoice = ExtractorChoice.AUTO,
        gazetteer_file: Path | None = None,
        n_process: int = 1,
        cache_offline: bool = False,
    ) -> None:
        """`cache_offline`: the offline extractor reads the extraction cache (filled by ingest/distributed.py)."""
        self.articles = list(articles)
        self.settings = settings
        self.options = options
        self.choice = extractor
        self.schema = load_schema(settings.schema_path)
        gazetteer = Gazetteer.from_sources((a.source for a in self.articles), schema=self.schema)
        self.gazetteer = gazetteer.with_file(gazetteer_file) if gazetteer_file is not None else gazetteer
        self.extractor = build_extractor(
            extractor, settings, self.schema, self.gazetteer, n_process, cache_offline=cache_offline
        )

    def state_store(self, key: str) -> StateStore:
        """The run's resume state under INGEST_STATE_PATH, keyed by the input, the extractor and the schema."""
        return StateStore(Path(self.settings.ingest_state_path), key, self.extractor.name, self.schema.fingerprint)

    def run(
        self, graph: Graph, *, chunk_store: ChunkSink | None = None, state: StateStore | None = None
    ) -> IngestReport:
        """Ingest the articles, then close the extractor (its worker processes)."""
        resolver = EntityResolver(
            self.settings.fuzzy_merge_threshold, self.gazetteer.publication_aliases(), schema=self.schema
        )
        try:
            with tracing.span(
                "ingest", {"graphwire.documents": len(self.articles), "graphwire.extractor": self.extractor.name}
            ):
                report = ingest_articles(
                    self.articles, graph, self.extractor, schema=self.schema, options=self.options, resolver=resolver,
                    chunk_store=chunk_store, state=state,
                )  # fmt: skip
        except BaseException:
            metrics.INGEST_RUNS.labels("error").inc()
            raise
        finally:
            self.close()
        observe(report)
        return report

    def close(self) -> None:
        if (close := getattr(self.extractor, "close", None)) is not None:
            close()


def observe(report: IngestReport) -> None:
    """Count what a finished run did in the ingest metrics (core/metrics.py)."""
    metrics.INGEST_RUNS.labels("ok").inc()
    for outcome, count in (("written", report.documents_written), ("updated", report.documents_updated),
                           ("unchanged", report.documents_unchanged)):  # fmt: skip
        metrics.INGEST_DOCUMENTS.labels(outcome).inc(count)
    metrics.INGEST_CHUNKS.inc(report.chunks_written)
    metrics.INGEST_FAILURES.labels("extraction").inc(len(report.failures))


def ingest_loaded(
    articles: Sequence[Article],
    graph: Graph,
    settings: Settings,
    *,
    options: IngestOptions,
    chunk_store: ChunkSink | None = None,
    extractor: ExtractorChoice = ExtractorChoice.AUTO,
    gazetteer_file: Path | None = None,
    n_process: int = 1,
    state: StateStore | None = None,
) -> IngestReport:
    """One `IngestRun` over these articles, run at once."""
    run = IngestRun(
        articles, settings, options=options, extractor=extractor, gazetteer_file=gazetteer_file, n_process=n_process
    )
    return run.run(graph, chunk_store=chunk_store, state=state)
