"""mode=hybrid on the chains corpus: the graph's chunk ranking guides flat+ over the same chunks (Neo4j + Chroma)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from unittest.mock import patch

import pytest
from support.chains import GoldExtractor, chain_articles, chain_records

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.embeddings import Vectors
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.retrieval.flat import FlatIndex, FlatPlusRetriever, GuidanceMode
from graphwire.retrieval.graph import GraphRetriever
from graphwire.retrieval.hybrid import HybridConfig, HybridRetriever
from graphwire.retrieval.models import RankedChunk, RetrievalResult
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
SUPPLY_QUESTION = "Which company supplies the supplier of Kestrel Motors?"
BRIDGE = "Quarrow Minerals doubles lithium refining for its biggest customer"  # Quarrow supplies Brightcell


@pytest.fixture
def stack(graph: Graph, tmp_path: Path) -> tuple[GraphRetriever, FlatPlusRetriever]:
    # MiniLM: the premise below is a bridge that flat+ alone ranks low; bge-small already ranks it third on its own
    settings = Settings(
        chroma_path=tmp_path / "chroma", chroma_collection="hybrid_test", offline_embedding_model="minilm"
    )
    store = ChunkStore.from_settings(settings)
    report = ingest_articles(
        chain_articles(),
        graph,
        GoldExtractor(chain_records()),
        options=IngestOptions(progress=False, force=True),
        chunk_store=store,
        schema=load_schema(),
    )
    assert not report.failures
    return GraphRetriever(graph, schema=load_schema()), FlatPlusRetriever(
        FlatIndex(store), store.embedder, schema=load_schema()
    )


def _titles(chunks: list[RankedChunk]) -> list[str]:
    return [c.title for c in chunks]


def test_boost_moves_the_graphs_bridge_chunk_above_flat_plus_alone(
    stack: tuple[GraphRetriever, FlatPlusRetriever],
) -> None:
    """The bridge article (Quarrow supplies Brightcell) shares few words with the question: flat+ alone ranks it
    below the recall coverage, the graph ranks it second (its facts are on the chain); boost must lift it."""
    graph_retriever, flat = stack
    graph_rank = _titles(graph_retriever.retrieve(SUPPLY_QUESTION, top_k=10).chunks).index(BRIDGE)
    flat_rank = _titles(flat.retrieve(SUPPLY_QUESTION, top_k=10).chunks).index(BRIDGE)
    assert graph_rank < flat_rank  # the premise: the graph knows something flat+ does not
    # weight 1 (the default is 0.5): the two recall articles share their facts, so the graph may rank them in either
    # order, and at 0.5 that order alone (1/63 vs 1/64) outweighs the bridge's 0.00003 lead over the second of them
    config = HybridConfig(guidance_mode=GuidanceMode.BOOST, guidance_weight=1.0)
    hybrid = HybridRetriever(graph_retriever, flat, config)
    assert _titles(hybrid.retrieve(SUPPLY_QUESTION, top_k=10).chunks).index(BRIDGE) < flat_rank
    # at a cut-off between the two ranks the bridge is returned only with guidance
    assert BRIDGE in _titles(hybrid.retrieve(SUPPLY_QUESTION, top_k=flat_rank).chunks)
    assert BRIDGE not in _titles(flat.retrieve(SUPPLY_QUESTION, top_k=flat_rank).chunks)


def test_boost_keeps_graph_facts_and_reports_each_sides_share(stack: tuple[GraphRetriever, FlatPlusRetriever]) -> None:
    graph_retriever, flat = stack
    hybrid = HybridRetriever(graph_retriever, flat, HybridConfig(guidance_weight=1.0, graph_depth=10))
    result = hybrid.retrieve(SUPPLY_QUESTION, top_k=5)

    assert result.mode == "hybrid"
    assert result.facts == graph_retriever.retrieve(SUPPLY_QUESTION, top_k=10).facts  # the graph's facts, as they are
    assert {
        ("Quarrow Minerals", "SUPPLIES", "Brightcell Energy"),
        ("Brightcell Energy", "SUPPLIES", "Kestrel Motors"),
    } <= {(f.subject, f.relationship, f.object) for f in result.facts}
    assert {e.name for e in result.entities} >= {"Kestrel Motors"}
    # the graph reaches the two chain articles and the two recall articles (they mention Kestrel Motors); the fifth
    # chunk returned comes from flat+ alone
    assert result.details["contribution"] == {
        "graph_chunks": 4,
        "returned_from_graph": 4,
        "returned_flat_only": 1,
        "guidance": "boost",
    }
    assert BRIDGE in _titles(result.chunks)
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


def test_the_graph_pass_runs_once_beside_the_embedding(stack: tuple[GraphRetriever, FlatPlusRetriever]) -> None:
    """The graph retriever runs on its own thread, once, while flat+ embeds the question's texts; flat+ waits for its
    ranking only to rank, and the result is the one of the serial order."""
    graph_retriever, flat = stack
    threads: list[str] = []
    embedded = threading.Event()
    original_retrieve, original_embed = graph_retriever.retrieve, flat.embedder.embed_queries

    def graph_after_embedding(question: str, top_k: int = 10) -> RetrievalResult:
        threads.append(threading.current_thread().name)
        assert embedded.wait(timeout=30)  # serially, the graph ran first and this would wait forever
        return original_retrieve(question, top_k)

    def embed(texts: Sequence[str]) -> Vectors:
        vectors = original_embed(texts)
        embedded.set()
        return vectors

    hybrid = HybridRetriever(graph_retriever, flat, HybridConfig(guidance_weight=1.0, graph_depth=10))
    expected = hybrid.retrieve(SUPPLY_QUESTION, top_k=5)
    with (
        patch.object(graph_retriever, "retrieve", graph_after_embedding),
        patch.object(flat.embedder, "embed_queries", embed),
    ):
        result = hybrid.retrieve(SUPPLY_QUESTION, top_k=5)
    assert threads == ["hybrid-graph"]
    assert [c.chunk_id for c in result.chunks] == [c.chunk_id for c in expected.chunks]
    assert "flat.guidance" in result.timings_ms
