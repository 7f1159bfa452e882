"""What `graphwire ingest` and the API's document jobs share around `ingest_articles`: the extractor chosen from
settings, the gazetteer and resolver built from the documents' outlets, and the options taken from settings.

    report = ingest_loaded(articles, graph, settings, chunk_store=store, options=ingest_options(settings))
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from graphwire.core.documents import Article
from graphwire.core.graph import Graph
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


class ExtractorUnavailableError(ValueError):
    """The LLM extractor was asked for, but no LLM is configured."""


def build_extractor(
    choice: ExtractorChoice, settings: Settings, schema: GraphSchema, gazetteer: Gazetteer, n_process: int = 1
) -> Extractor:
    use_llm = choice == ExtractorChoice.LLM or (choice == ExtractorChoice.AUTO and settings.llm_configured)
    if not use_llm:
        from graphwire.ingest.extractors.offline import OfflineExtractor

        return OfflineExtractor(schema.labels, gazetteer, n_process=n_process, schema=schema)
    if not settings.llm_configured:
        raise ExtractorUnavailableError("--extractor llm needs LLM_BASE_URL and LLM_MODEL")
    from graphwire.ingest.extraction_cache import CachedExtractor
    from graphwire.ingest.extractors.llm import LLMExtractor

    return CachedExtractor(
        LLMExtractor(settings, schema), settings.extraction_cache_path, schema_fingerprint=schema.fingerprint
    )


def ingest_options(settings: Settings, **overrides: Any) -> IngestOptions:
    """IngestOptions from settings (chunking, write batches, resolution threshold), with per-run overrides."""
    options = IngestOptions(
        chunk_size=settings.chunk_size,
        chunk_overlap=settings.chunk_overlap,
        write_batch_size=settings.ingest_batch_size,
        write_threads=settings.ingest_write_threads,
        fuzzy_threshold=settings.fuzzy_merge_threshold,
    )
    for name, value in overrides.items():
        setattr(options, name, value)
    return options


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
    """Build the extractor and resolver for these articles, run `ingest_articles`, close the extractor."""
    schema = load_schema(settings.schema_path)
    gazetteer = Gazetteer.from_sources((a.source for a in articles), schema=schema)
    if gazetteer_file is not None:
        gazetteer = gazetteer.with_file(gazetteer_file)
    built = build_extractor(extractor, settings, schema, gazetteer, n_process)
    resolver = EntityResolver(settings.fuzzy_merge_threshold, gazetteer.publication_aliases())
    try:
        return ingest_articles(
            articles, graph, built, schema=schema, options=options, resolver=resolver, chunk_store=chunk_store,
            state=state,
        )  # fmt: skip
    finally:
        if (close := getattr(built, "close", None)) is not None:
            close()  # the offline extractor's worker processes
