"""The graph retriever and the extractive answerer on the chains corpus, ingested by the real pipeline into Neo4j."""

from __future__ import annotations

import json

import pytest
from support.openai_stub import OpenAIStub, text

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.answer.extractive import ExtractiveAnswerer
from graphwire.retrieval.graph import GraphRetriever
from graphwire.retrieval.graph.templates import NO_NAME
from graphwire.retrieval.models import ABSTENTION, FactTier, MatchTier, RetrievalResult
from graphwire.retrieval.registry import RetrievalContext, build_retriever
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def retriever(chains_graph: Graph) -> GraphRetriever:
    return GraphRetriever(chains_graph, schema=load_schema())


def _facts(result: RetrievalResult, tier: FactTier) -> set[tuple[str, str, str]]:
    return {(f.subject, f.relationship, f.object) for f in result.facts if f.tier is tier}


def _titles(result: RetrievalResult, chunk_ids: list[str]) -> set[str]:
    by_id = {c.chunk_id: c.title for c in result.chunks}
    return {by_id[cid] for cid in chunk_ids}


def test_supplier_of_a_supplier(retriever: GraphRetriever) -> None:
    question = "Which company supplies the supplier of Kestrel Motors?"
    result = retriever.retrieve(question, top_k=10)
    assert [(e.name, e.tier) for e in result.entities] == [("Kestrel Motors", MatchTier.EXACT)]
    direct = _facts(result, FactTier.DIRECT)
    assert ("Brightcell Energy", "SUPPLIES", "Kestrel Motors") in direct
    assert ("Quarrow Minerals", "SUPPLIES", "Brightcell Energy") in direct  # the second hop
    assert not _facts(result, FactTier.KEY) and not _facts(result, FactTier.BRIDGE)
    assert set(result.timings_ms) >= {"aliases", "matching", "templates", "filtering", "total"}

    answer = ExtractiveAnswerer(schema=load_schema()).answer(question, result)
    assert answer.text == "Quarrow Minerals"
    assert [c.title for c in answer.citations] == ["Quarrow Minerals doubles lithium refining for its biggest customer"]
    assert answer.citations[0].publication == "Northgate Daily"


def test_chained_relations_reach_one_hop_past_the_neighbourhood(retriever: GraphRetriever) -> None:
    question = "In which city is the supplier of the maker of the Kestrel K2 based?"
    result = retriever.retrieve(question, top_k=10)
    assert [e.name for e in result.entities] == ["Kestrel K2"]
    # three hops from the Kestrel K2: beyond the two-hop DIRECT facts, found by following the asked types
    assert ("Brightcell Energy", "LOCATED_IN", "Oslo") in _facts(result, FactTier.DIRECT)
    answer = ExtractiveAnswerer(schema=load_schema()).answer(question, result)
    assert answer.text == "Oslo"
    assert [c.title for c in answer.citations] == ["Brightcell Energy signs five-year cell deal with Kestrel Motors"]


def test_the_chain_does_not_expand_a_hub_off_the_questions_chain(chains_graph: Graph) -> None:
    """retrieve/relation_hops reads the asked types around an entity the first read reached only while it has at
    most $two_hop_max_degree relationships (its relationships cannot be read by type without reading all of them);
    an entity in $near (the question's entities and those the asked types join to them) is expanded whatever its
    degree."""
    key = "Organization:brightcell energy"
    [row] = chains_graph.read("check/entity_degree", key=key)
    params = {"keys": [key], "types": ["LOCATED_IN"], "sources": [NO_NAME], "windows": [], "lists": None,
              "per_entity": 8, "limit": 60, "chunks_per_fact": 100}  # fmt: skip

    def hops(near: list[str], degree: int) -> set[tuple[str, str, str]]:
        rows = chains_graph.read("retrieve/relation_hops", **params, near=near, two_hop_max_degree=degree)
        return {(r["subject"], r["relationship"], r["object"]) for r in rows}

    located = ("Brightcell Energy", "LOCATED_IN", "Oslo")
    assert located in hops([NO_NAME], row["degree"])
    assert hops([NO_NAME], row["degree"] - 1) == set()  # one relationship fewer allowed: a hub, not expanded
    assert located in hops([key], row["degree"] - 1)  # on the question's chain: expanded all the same


def test_board_member_bridges_two_companies(retriever: GraphRetriever) -> None:
    question = "Who sits on the boards of both Lumen Labs and Corvid Analytics?"
    result = retriever.retrieve(question, top_k=10)
    assert {e.name for e in result.entities} == {"Lumen Labs", "Corvid Analytics"}
    assert _facts(result, FactTier.KEY) == {("Corvid Analytics", "COMPETES_WITH", "Lumen Labs")}
    assert _facts(result, FactTier.BRIDGE) == {
        ("Mara Ellison", "WORKS_FOR", "Lumen Labs"),
        ("Mara Ellison", "WORKS_FOR", "Corvid Analytics"),
    }
    key_chunk = next(f for f in result.facts if f.tier is FactTier.KEY).chunk_ids[0]
    assert result.chunks[0].chunk_id == key_chunk  # chunks behind KEY facts rank first

    answer = ExtractiveAnswerer(schema=load_schema()).answer(question, result)
    assert answer.text == "Mara Ellison"
    assert {c.title for c in answer.citations} == {
        "Lumen Labs names former regulator Mara Ellison to its board",
        "Corvid Analytics adds fintech veteran to board",
    }


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Did The Harbor Ledger report the Kestrel K2 recall before Northgate Daily?", "Yes"),
        ("Did Northgate Daily report the Kestrel K2 recall before The Harbor Ledger?", "No"),
        ("Did Northgate Daily report the Kestrel K2 recall after The Harbor Ledger?", "Yes"),
    ],
)
def test_two_outlets_same_event_different_dates(retriever: GraphRetriever, question: str, expected: str) -> None:
    result = retriever.retrieve(question, top_k=10)
    assert {e.name: e.label for e in result.entities} == {
        "Kestrel K2": "Product",
        "The Harbor Ledger": "Publication",
        "Northgate Daily": "Publication",
    }
    assert ("Kestrel K2", "REPORTED_BY", "The Harbor Ledger") in _facts(result, FactTier.KEY)
    assert ("Kestrel K2", "REPORTED_BY", "Northgate Daily") in _facts(result, FactTier.KEY)
    answer = ExtractiveAnswerer(schema=load_schema()).answer(question, result)
    assert answer.text == expected
    assert {(c.publication, str(c.published_at)) for c in answer.citations} == {
        ("The Harbor Ledger", "2024-03-04"),
        ("Northgate Daily", "2024-03-09"),
    }


def test_date_window_keeps_only_chunks_published_that_day(retriever: GraphRetriever) -> None:
    result = retriever.retrieve("What did The Harbor Ledger publish about Kestrel Motors on March 4, 2024?", top_k=10)
    harbor = {c.published_at.isoformat() for c in result.chunks if c.source == "The Harbor Ledger" and c.published_at}
    assert harbor == {"2024-03-04"}
    assert all(set(f.chunk_ids) <= {c.chunk_id for c in result.chunks} for f in result.facts if f.tier is FactTier.KEY)


def test_aliases_and_partial_names_match_by_tier_with_coverage(retriever: GraphRetriever) -> None:
    lumen = retriever.retrieve("What does Lumen sell?", top_k=5)  # "Lumen" is an alias: exact
    assert [(e.name, e.tier) for e in lumen.entities] == [("Lumen Labs", MatchTier.EXACT)]
    hyperscalers = retriever.retrieve("What did Hyperscalers open?", top_k=5)
    assert [(e.name, e.tier) for e in hyperscalers.entities] == [("Hyperscalers Group", MatchTier.PREFIX)]
    hype = retriever.retrieve("What did Hype announce?", top_k=5)
    assert hype.entities == [] and hype.chunks == []  # "Hype" is not "Hyperscalers Group"


@pytest.mark.parametrize(
    "question",
    [
        "Who is the chief executive of Pellucid Robotics?",  # no such entity: nothing to match
        "Which award did Quarrow Minerals receive?",  # the entity exists, the fact does not
    ],
)
def test_unanswerable_questions_abstain(retriever: GraphRetriever, question: str) -> None:
    result = retriever.retrieve(question, top_k=10)
    answer = ExtractiveAnswerer(schema=load_schema()).answer(question, result)
    assert answer.text == ABSTENTION and answer.citations == []


def test_every_fact_is_a_relationship_in_the_graph(retriever: GraphRetriever, chains_graph: Graph) -> None:
    result = retriever.retrieve("Which company supplies the supplier of Kestrel Motors?", top_k=10)
    for fact in result.facts:
        [row] = chains_graph.read(
            "check/fact_chunk_ids", subject=fact.subject, object=fact.object, type=fact.relationship
        )
        assert set(fact.chunk_ids) <= set(row["ids"])


def test_llm_alias_extractor_adds_what_the_deterministic_pass_misses(
    chains_graph: Graph, llm_settings: Settings, openai_stub: OpenAIStub
) -> None:
    openai_stub.script(text(json.dumps({"entities": [{"name": "Kestrel Motors", "aliases": ["Kestrel"]}]})))
    retriever = build_retriever("graph", RetrievalContext(llm_settings, graph=lambda: chains_graph))
    question = "who runs the carmaker kestrel motors?"  # no capitals: the deterministic pass finds no span
    result = retriever.retrieve(question, top_k=5)
    assert result.details["extractors"] == ["deterministic", "llm"]
    assert [(e.name, e.tier) for e in result.entities] == [("Kestrel Motors", MatchTier.EXACT)]
    assert ExtractiveAnswerer(schema=load_schema()).answer(question, result).text == "Ilse Varga"
    assert len(openai_stub.chat_requests) == 1


def test_a_named_outlet_brings_every_chunk_of_its_documents(retriever: GraphRetriever, chains_graph: Graph) -> None:
    # retrieve/candidates finds an outlet's documents through their sources (the name index's `sources_of`), not
    # through the outlet's REPORTED_BY, most of which come from entities
    index = retriever.names.get()
    [harbor] = [key for key, node in index.nodes.items() if node.name == "The Harbor Ledger"]
    assert index.sources_of([harbor]) == ["The Harbor Ledger"]
    result = retriever.retrieve("What did The Harbor Ledger report?", top_k=100)
    rows = chains_graph.read("documents/list", source="The Harbor Ledger", published_after=None, published_before=None,
                             readers=None, limit=1000, offset=0)  # fmt: skip
    expected = sum(row["chunks"] for row in rows)
    assert expected > 0 and len(result.chunks) == expected
    assert {c.source for c in result.chunks} == {"The Harbor Ledger"}
