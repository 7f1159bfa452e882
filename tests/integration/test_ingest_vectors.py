"""The vector store sees exactly the chunks the graph has, and exactly their sentences: after ingest, after an update,
after a delete; in a Chroma folder and on a Chroma server (`chroma run`, CHROMA_HOST set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.chroma_server import on_chroma
from support.schemas import news_caps

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.clients.sentence_vectors import chunk_sentences
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.consistency import check_store, repair_store
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, delete_documents, ingest_articles
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"


def graph_chunk_ids(graph: Graph, articles: list[Article]) -> set[str]:
    return {r["id"] for a in articles for r in graph.read("ingest/document_chunk_ids", document_id=a.doc_id)}


def store_chunk_ids(store: ChunkStore) -> set[str]:
    return {c.id for c in store.get_all()}


def assert_sentences_match(store: ChunkStore) -> None:
    """One sentence row per sentence of every stored chunk: none missing, none left from an older text or a delete."""
    chunks, _ = store.get_all_with_vectors()
    found = store.sentence_vectors({c.id: i for i, c in enumerate(chunks)})
    assert found is not None and store.sentences is not None
    expected = sorted(i for i, c in enumerate(chunks) for _ in chunk_sentences(c))
    assert found[0].tolist() == expected
    assert store.sentences.chunks_with_sentences() == {c.id for c in chunks if chunk_sentences(c)}


@pytest.mark.parametrize("chroma", ["folder", "server"])
def test_vector_store_follows_ingest_update_and_delete(
    graph: Graph, tmp_path: Path, chroma: str, request: pytest.FixtureRequest
) -> None:
    articles = load_articles(DEMO).articles[:3]
    settings = on_chroma(chroma, Settings(chroma_path=tmp_path / "chroma", chroma_collection="ingest_test"), request)
    store = ChunkStore.from_settings(settings)
    extractor = OfflineExtractor(
        load_schema(), Gazetteer.from_sources((a.source for a in articles), schema=load_schema())
    )
    options = IngestOptions(progress=False)
    ingest_articles(articles, graph, extractor, options=options, chunk_store=store, schema=load_schema())
    assert store_chunk_ids(store) == graph_chunk_ids(graph, articles) and store.count() == 3
    assert_sentences_match(store)

    changed = articles[0].model_copy(update={"body": articles[0].body + " A later correction was added."})
    ingest_articles([changed], graph, extractor, options=options, chunk_store=store, schema=load_schema())
    assert store_chunk_ids(store) == graph_chunk_ids(graph, articles)
    assert any("later correction" in c.text for c in store.get_all())
    assert_sentences_match(store)

    delete_documents(graph, [articles[1].doc_id], chunk_store=store, provenance=news_caps())
    remaining = [articles[0], articles[2]]
    assert store_chunk_ids(store) == graph_chunk_ids(graph, remaining) and store.count() == 2
    assert_sentences_match(store)


def test_db_check_finds_chunks_without_sentence_vectors_and_repair_fills_them(graph: Graph, tmp_path: Path) -> None:
    articles = load_articles(DEMO).articles[:3]
    settings = Settings(chroma_path=tmp_path / "chroma", chroma_collection="check_sentences")
    older = ChunkStore.from_settings(settings.model_copy(update={"sentence_vectors": False}))
    extractor = OfflineExtractor(
        load_schema(), Gazetteer.from_sources((a.source for a in articles), schema=load_schema())
    )
    ingest_articles(articles, graph, extractor, options=IngestOptions(progress=False), chunk_store=older,
                    schema=load_schema())  # fmt: skip
    assert check_store(graph, older, news_caps()).ok  # with sentence vectors off there is nothing to miss
    store = ChunkStore.from_settings(settings)
    found = check_store(graph, store, news_caps())
    assert found.missing_sentences == sorted(graph_chunk_ids(graph, articles))
    assert not found.ok and "chunks without sentence vectors" in " ".join(found.problems())
    assert repair_store(graph, store, found, news_caps(), load_schema().roles).sentences_embedded == 3
    assert check_store(graph, store, news_caps()).ok
    assert_sentences_match(store)
