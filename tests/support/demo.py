"""The demo corpus (data/demo/) written into a real Neo4j and Chroma as `graphwire demo` ingests it, for tests that
serve the demo graph (the web UI in a browser, the MCP server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.ingest.resolve import EntityResolver
from graphwire.schema.model import load_schema

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


def ingest_demo(graph: Graph, settings: Settings) -> None:
    """The demo corpus as `graphwire demo` ingests it: offline extractor, its gazetteer, vectors in Chroma."""
    ingest_articles_as_demo(graph, settings, load_articles(DEMO / "articles.jsonl").articles)


def ingest_documents(graph: Graph, settings: Settings, records: list[dict[str, Any]]) -> None:
    """More documents (corpus records) into the demo's stores, as the demo's own were written."""
    ingest_articles_as_demo(graph, settings, [Article.model_validate(record) for record in records])


def ingest_articles_as_demo(graph: Graph, settings: Settings, articles: list[Article]) -> None:
    schema = load_schema()
    gazetteer = Gazetteer.from_sources((a.source for a in articles), schema=schema).with_file(DEMO / "gazetteer.yaml")
    extractor = OfflineExtractor(schema, gazetteer)
    ingest_articles(
        articles,
        graph,
        extractor,
        schema=schema,
        options=IngestOptions(progress=False),
        resolver=EntityResolver(settings.fuzzy_merge_threshold, gazetteer.publication_aliases(), schema=schema),
        chunk_store=ChunkStore.from_settings(settings),
    )
