"""PPR retrieval, k-hop neighbourhoods and shortest paths over real Neo4j, on the encyclopedia corpus
(tests/data/encyclopedia: fictional people, films, places with known chains, namesakes and distractors)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support.encyclopedia import SCHEMA_PATH, EncyclopediaCorpus, load_corpus, write_to_graph

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.paths import EntityRef, NoPathError, hub_types, neighborhood, resolve_entity, shortest_path
from graphwire.retrieval.ppr import PPRRetriever, SnapshotCache
from graphwire.retrieval.ppr.export import export_snapshot, graph_fingerprint
from graphwire.retrieval.registry import RetrievalContext, build_retriever
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
HUBS = hub_types(load_schema(SCHEMA_PATH))  # the test corpus schema's hub types: not followed


@pytest.fixture(scope="module")
def corpus_graph(session_graph: Graph) -> Iterator[tuple[Graph, EncyclopediaCorpus]]:
    session_graph.write("admin/wipe")
    corpus = write_to_graph(session_graph, load_corpus())
    yield session_graph, corpus
    session_graph.write("admin/wipe")


@pytest.fixture(scope="module")
def client(
    corpus_graph: tuple[Graph, EncyclopediaCorpus], neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    tmp: Path = tmp_path_factory.mktemp("graph-api")
    with TestClient(create_app(neo4j_settings.model_copy(update={"chroma_path": tmp / "chroma"}))) as c:
        yield c


def encyclopedia_context(graph: Graph, settings: Settings) -> RetrievalContext:
    """Retrieval over the encyclopedia corpus: its schema, and a snapshot re-checked on every query."""
    settings = settings.model_copy(update={"schema_path": SCHEMA_PATH, "ppr_snapshot_check_s": 0.0})
    return RetrievalContext(settings, graph=lambda: graph)


def test_snapshot_export_matches_the_corpus(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, corpus = corpus_graph
    snap = export_snapshot(graph)
    expected = corpus.snapshot()
    assert snap.n_entities == expected.n_entities
    assert snap.n_chunks == expected.n_chunks
    assert snap.n_relations == expected.n_relations
    assert snap.titles.nnz == len(corpus.passages)  # every passage is linked to its title entity
    dune = snap.chunk_index["enc-the-glass-harbor-novel"]
    assert snap.entity_keys[snap.titles[dune].indices[0]] == "Book:the glass harbor"


def test_ppr_retriever_finds_the_bridge_passage(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, corpus = corpus_graph
    retriever = PPRRetriever(graph, SnapshotCache(graph, check_interval_s=0))
    result = retriever.retrieve("Where was the director of Blue Cartographer born?", top_k=3)
    ids = [c.chunk_id for c in result.chunks]
    assert ids[0] == "enc-blue-cartographer"
    assert "enc-tomasz-wren" in ids  # the director's passage, which names the birthplace
    assert result.mode == "ppr" and result.entities[0].key == "Film:blue cartographer"
    assert {"snapshot", "seeds", "ppr", "chunks"} <= set(result.timings_ms)
    assert result.chunks[0].text.startswith("Blue Cartographer is a 1999 road film")
    assert all(a.score >= b.score for a, b in zip(result.chunks, result.chunks[1:], strict=False))


def test_ppr_mode_from_the_registry_uses_relation_cues(
    corpus_graph: tuple[Graph, EncyclopediaCorpus], neo4j_settings: Settings
) -> None:
    """Relation cues are off by default (they cost HotpotQA Perfect@8, bench/graph_ablation.md); PPR_RELATION_CUES
    turns them on, and on this corpus of typed facts they pick the relation the question asks about."""
    graph, _ = corpus_graph
    question = "Where was the cinematographer of The Lantern Keepers born?"
    assert (
        "relation_cues"
        not in build_retriever("ppr", encyclopedia_context(graph, neo4j_settings)).retrieve(question, top_k=5).details
    )
    cued = encyclopedia_context(graph, neo4j_settings.model_copy(update={"ppr_relation_cues": 0.9}))
    result = build_retriever("ppr", cued).retrieve(question, top_k=5)
    assert [c.chunk_id for c in result.chunks[:2]] == ["enc-the-lantern-keepers", "enc-yusuf-adebayo-krane"]
    assert next(iter(result.details["relation_cues"])) == "SHOT"  # the type the question asks about
    assert any(m.key == "Film:the lantern keepers" and m.score <= 1.0 for m in result.entities)


def test_auto_mode_routes_a_compositional_question_to_ppr(
    corpus_graph: tuple[Graph, EncyclopediaCorpus], neo4j_settings: Settings
) -> None:
    graph, _ = corpus_graph
    auto = build_retriever("auto", encyclopedia_context(graph, neo4j_settings))
    result = auto.retrieve("Where was the director of Blue Cartographer born?", top_k=3)
    assert result.mode == "auto"
    # Blue Cartographer is what one of the corpus's pages is about: its title entity sends the question to PPR
    assert result.details["router"]["rule"] == "titled_entities" and result.details["router"]["mode"] == "ppr"
    assert {c.chunk_id for c in result.chunks[:2]} == {"enc-blue-cartographer", "enc-tomasz-wren"}
    unknown = auto.retrieve("What is the boiling point of mercury on the moon?", top_k=3)
    assert unknown.details["router"]["rule"] == "nothing_matched"


def test_ppr_retriever_abstains_without_a_known_entity(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, _ = corpus_graph
    result = PPRRetriever(graph, SnapshotCache(graph)).retrieve("What is the boiling point of mercury?", top_k=5)
    assert result.chunks == [] and "reason" in result.details


def _ref(graph: Graph, name: str) -> EntityRef:
    return resolve_entity(graph, name)


def test_shortest_path_follows_a_known_chain(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, _ = corpus_graph
    path = shortest_path(
        graph, _ref(graph, "Pieter Halvorsen"), _ref(graph, "Dovrenia"), max_hops=6, excluded_types=HUBS
    )
    assert path.length == 2  # Halvorsen -BORN_IN-> Port Elsin -LOCATED_IN-> Dovrenia
    assert [s.fact.relationship for s in path.steps] == ["BORN_IN", "LOCATED_IN"]
    assert path.steps[0].sources[0].chunk_id in path.steps[0].fact.chunk_ids
    assert path.steps[0].sources[0].title in {"Pieter Halvorsen", "Northlight Pictures"}


def test_shortest_path_respects_the_bound_and_reports_direction(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, _ = corpus_graph
    src, dst = _ref(graph, "Renata Osei"), _ref(graph, "Mateo Brandt")
    path = shortest_path(graph, src, dst, max_hops=6, excluded_types=HUBS)
    with pytest.raises(NoPathError):
        shortest_path(graph, src, dst, max_hops=path.length - 1, excluded_types=HUBS)
    # a walk from src to dst, each step starting where the one before ended
    assert [s.from_entity.key for s in path.steps] == [src.key] + [s.to_entity.key for s in path.steps[:-1]]
    assert path.steps[-1].to_entity.key == dst.key
    # Osei is only ever a subject and Brandt only ever a subject, so the walk leaves along a stored relationship
    # and arrives against one: both directions occur, and `forward` must say which is which
    assert path.steps[0].forward and not path.steps[-1].forward
    for step in path.steps:
        stored = (step.fact.subject_key, step.fact.object_key)
        walked = (step.from_entity.key, step.to_entity.key)
        assert stored == (walked if step.forward else walked[::-1]), step


def test_no_path_for_an_isolated_component(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, _ = corpus_graph
    # The novel and its author form their own component: nothing links them to the film world within 6 hops
    # except through Orlenz (Osei's birthplace); Cinema of Kestria has no facts at all.
    with pytest.raises(NoPathError):
        shortest_path(graph, _ref(graph, "Cinema of Kestria"), _ref(graph, "Varnholm"), max_hops=6, excluded_types=HUBS)


def test_neighborhood_grows_hop_by_hop(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, _ = corpus_graph
    result = neighborhood(graph, _ref(graph, "Salt Meridian"), hops=2, excluded_types=HUBS)
    first, second = result.hops
    assert {f.relationship for f in first.facts} == {"DIRECTED", "PRODUCED", "ACTED_IN", "SHOT"}
    assert first.new_facts == 4 and first.new_entities == 4
    second_facts = {(f.subject, f.relationship, f.object) for f in second.facts}
    assert ("Tomasz Wren", "MARRIED_TO", "Ilse Morrow") in second_facts
    assert ("Cobalt Reel", "LOCATED_IN", "Orlenz") in second_facts
    assert not {(f.subject, f.relationship, f.object) for f in first.facts} & second_facts
    assert second.cumulative_facts == first.new_facts + second.new_facts
    assert second.cumulative_tokens == first.approx_tokens + second.approx_tokens > first.approx_tokens


def test_neighborhood_limit_marks_truncation(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, _ = corpus_graph
    hop = neighborhood(graph, _ref(graph, "Salt Meridian"), hops=1, per_hop_limit=2, excluded_types=HUBS).hops[0]
    assert hop.new_facts == 2 and hop.truncated


def test_api_path_and_its_errors(client: TestClient) -> None:
    ok = client.get("/v1/graph/path", params={"source": "Pieter Halvorsen", "target": "Dovrenia"})
    assert ok.status_code == 200, ok.text
    assert [s["fact"]["relationship"] for s in ok.json()["steps"]] == ["BORN_IN", "LOCATED_IN"]

    none = client.get("/v1/graph/path", params={"source": "Cinema of Kestria", "target": "Varnholm", "max_hops": 3})
    assert none.status_code == 404 and none.json()["error"]["code"] == "no_path"
    assert "within 3 hops" in none.json()["error"]["message"]

    unknown = client.get("/v1/graph/path", params={"source": "Zebediah Quartermaine", "target": "Varnholm"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "entity_not_found"

    ambiguous = client.get("/v1/graph/path", params={"source": "The Glass Harbor", "target": "Varnholm"})
    assert ambiguous.status_code == 409, ambiguous.text
    body = ambiguous.json()["error"]
    assert body["code"] == "ambiguous_entity"
    keys = {c["key"] for c in body["details"]["candidates"]}
    assert {"Film:the glass harbor", "Book:the glass harbor"} <= keys

    by_key = client.get("/v1/graph/path", params={"source": "Film:the glass harbor", "target": "Varnholm"})
    assert by_key.status_code == 200 and by_key.json()["length"] == 2  # directed by Ilse Marrow, born in Varnholm

    same = client.get("/v1/graph/path", params={"source": "Varnholm", "target": "Varnholm"})
    assert same.status_code == 422

    too_far = client.get("/v1/graph/path", params={"source": "Varnholm", "target": "Kestria", "max_hops": 7})
    assert too_far.status_code == 422


def test_api_neighborhood_and_hops_out_of_range(client: TestClient) -> None:
    ok = client.get("/v1/graph/neighborhood", params={"entity": "Cobalt Reel", "hops": 2})
    assert ok.status_code == 200, ok.text
    body = ok.json()
    assert body["entity"]["key"] == "Organization:cobalt reel"
    assert [h["hop"] for h in body["hops"]] == [1, 2]
    assert body["hops"][0]["new_facts"] == 3 and body["hops"][1]["new_facts"] > 0
    for hops in (0, 4):
        bad = client.get("/v1/graph/neighborhood", params={"entity": "Cobalt Reel", "hops": hops})
        assert bad.status_code == 422


# Last in the module: it adds an entity (the module fixture wipes the graph afterwards).
def test_snapshot_is_rebuilt_only_when_the_graph_changes(corpus_graph: tuple[Graph, EncyclopediaCorpus]) -> None:
    graph, corpus = corpus_graph
    cache = SnapshotCache(graph, check_interval_s=0)
    first = cache.snapshot()
    assert cache.snapshot() is first and cache.builds == 1
    before = graph_fingerprint(graph)
    extra = [{"key": "Place:nowhere", "name": "Nowhere", "label": "Place", "aliases": ["Nowhere"], "norm": "nowhere"}]
    graph.write_batches("fixture/entities", extra)
    assert graph_fingerprint(graph) != before
    assert cache.snapshot() is not first and cache.builds == 2
    assert "Place:nowhere" in cache.snapshot().entity_index
