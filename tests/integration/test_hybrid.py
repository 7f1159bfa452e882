"""mode=hybrid on the chains corpus: the graph's chunk ranking guides flat+ over the same chunks (Neo4j + Chroma)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.chains import GoldExtractor, chain_articles, chain_records

from core.chunk_store import ChunkStore
from core.graph import Graph
from core.settings import Settings
from ingest.pipeline import IngestOptions, ingest_articles
from retrieval.flat import FlatIndex, FlatPlusRetriever, GuidanceMode
from retrieval.graph import GraphRetriever
from retrieval.hybrid import HybridConfig, HybridRetriever

pytestmark = pytest.mark.integration
SUPPLY_QUESTION = "Which company supplies the supplier of Kestrel Motors?"


@pytest.fixture
def stack(graph: Graph, tmp_path: Path) -> tuple[GraphRetriever, FlatPlusRetriever]:
    store = ChunkStore.from_settings(Settings(chroma_path=tmp_path / "chroma", chroma_collection="hybrid_test"))
    report = ingest_articles(
        chain_articles(),
        graph,
        GoldExtractor(chain_records()),
        options=IngestOptions(progress=False, force=True),
        chunk_store=store,
    )
    assert not report.failures
    return GraphRetriever(graph), FlatPlusRetriever(FlatIndex(store), store.embedder)


def test_boost_keeps_graph_facts_and_reports_each_sides_share(stack: tuple[GraphRetriever, FlatPlusRetriever]) -> None:
    graph_retriever, flat = stack
    hybrid = HybridRetriever(graph_retriever, flat, HybridConfig(guidance_weight=1.0, graph_depth=10))
    result = hybrid.retrieve(SUPPLY_QUESTION, top_k=5)
    graph_only = graph_retriever.retrieve(SUPPLY_QUESTION, top_k=10)

    assert result.mode == "hybrid"
    assert [f.render() for f in result.facts] == [f.render() for f in graph_only.facts]
    assert {"Quarrow Minerals", "Brightcell Energy"} <= {f.subject for f in result.facts}
    titles = [c.title for c in result.chunks]
    assert any(t.startswith("Quarrow Minerals") for t in titles)
    assert any(t.startswith("Brightcell Energy") for t in titles)
    share = result.details["contribution"]
    graph_ids = {c.chunk_id for c in graph_only.chunks}
    assert share["graph_chunks"] == len(graph_ids)
    assert share["returned_from_graph"] == sum(c.chunk_id in graph_ids for c in result.chunks)
    assert share["returned_from_graph"] + share["returned_flat_only"] == len(result.chunks) == 5
    assert {"graph.total", "flat.total", "total"} <= set(result.timings_ms)


def test_restrict_returns_only_chunks_the_graph_reached(stack: tuple[GraphRetriever, FlatPlusRetriever]) -> None:
    graph_retriever, flat = stack
    hybrid = HybridRetriever(graph_retriever, flat, HybridConfig(guidance_mode=GuidanceMode.RESTRICT, graph_depth=3))
    result = hybrid.retrieve(SUPPLY_QUESTION, top_k=10)
    reached = {c.chunk_id for c in graph_retriever.retrieve(SUPPLY_QUESTION, top_k=3).chunks}
    assert 0 < len(result.chunks) <= 3
    assert {c.chunk_id for c in result.chunks} <= reached
    assert result.details["contribution"]["returned_flat_only"] == 0


def test_without_a_graph_match_hybrid_is_flat_plus(stack: tuple[GraphRetriever, FlatPlusRetriever]) -> None:
    graph_retriever, flat = stack
    question = "What did regulators say about lithium refining output?"
    hybrid = HybridRetriever(graph_retriever, flat).retrieve(question, top_k=5)
    plain = flat.retrieve(question, top_k=5)
    assert hybrid.details["contribution"]["guidance"].startswith("none")
    assert [c.chunk_id for c in hybrid.chunks] == [c.chunk_id for c in plain.chunks]
