"""Document-level access over real Neo4j and Chroma: the demo corpus with access lists, every retrieval mode asked as
readers of different groups, the documents API and the views that refuse restricted callers.

The property: whatever documents are closed to whom (hypothesis draws the access lists, set through
`access/set_document_access`, the statement behind PUT /v1/documents/{id}/access), no retrieval of any mode returns
a chunk, a fact's chunk or evidence sentence, an excerpt or a matched entity that the reader's readable documents do
not support."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.auth import Team, make_team
from support.demo import DEMO, ingest_documents

from graphwire.app.auth import operations as ops
from graphwire.app.errors import ApiError
from graphwire.app.graph_access import entity_neighborhood, entity_path, find_entities, reader_scope
from graphwire.app.main import create_app
from graphwire.core.access import EVERYONE, Reader
from graphwire.core.auth.models import LOCAL
from graphwire.core.clients.graph import Graph
from graphwire.core.names import normalise_name
from graphwire.core.settings import AuthMode, Settings
from graphwire.core.stores.store_version import bump
from graphwire.ingest.exchange.models import ExchangeError
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.retrieval.access import retrieve_as
from graphwire.retrieval.graph.lookup import graph_stats
from graphwire.retrieval.models import RetrievalResult
from graphwire.retrieval.paths import GraphFact
from graphwire.retrieval.registry import RetrievalContext, mode_names
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
GROUPS = ("finance", "legal", "press")
QUESTIONS = [q["question"] for q in json.loads((DEMO / "questions.json").read_text(encoding="utf-8"))][:6]


@pytest.fixture(scope="module")
def context(session_graph: Graph, demo_settings: Settings) -> RetrievalContext:
    return RetrievalContext(demo_settings, graph=lambda: session_graph)


def document_ids(graph: Graph) -> list[str]:
    filters = {"source": None, "published_after": None, "published_before": None, "readers": None}
    return sorted(row["id"] for row in graph.read("documents/list", **filters, limit=100, offset=0))


def set_access(graph: Graph, closed: dict[str, list[str]], context: RetrievalContext | None = None) -> None:
    """What PUT /v1/documents/{id}/access writes, for every document, then the store's new stamp (what the API's
    write session adds), seen at once by `context`."""
    for document_id in document_ids(graph):
        graph.write("access/set_document_access", id=document_id, access=closed.get(document_id))
    bump(graph)
    if context is not None:
        context.refresh()


def readable_world(graph: Graph, reader: Reader) -> tuple[dict[str, str], set[str]]:
    """The texts of the chunks `reader` may read, by id, and the keys of the entities those chunks mention."""
    rows = graph.read("check/access_world", readers=reader.param())
    [row] = rows
    return {c["id"]: c["text"] for c in row["chunks"]}, set(row["entities"])


def assert_within(result: RetrievalResult, chunks: dict[str, str], entities: set[str]) -> None:
    for chunk in result.chunks:
        assert chunk.chunk_id in chunks, (result.mode, chunk.chunk_id)
    for excerpt in result.excerpts:
        assert excerpt.chunk_id in chunks, (result.mode, excerpt.chunk_id)
    for fact in result.facts:
        assert fact.chunk_ids and set(fact.chunk_ids) <= set(chunks), (result.mode, fact)
        assert len(fact.evidence) <= len(fact.chunk_ids)
        for sentence, chunk_id in zip(fact.evidence, fact.chunk_ids, strict=False):
            assert " ".join(sentence.split())[:40] in " ".join(chunks[chunk_id].split()), (result.mode, sentence)
    for entity in result.entities:
        assert entity.key in entities, (result.mode, entity)


closed_lists = st.dictionaries(
    st.integers(min_value=0, max_value=21), st.lists(st.sampled_from(GROUPS), min_size=1, max_size=2), max_size=12
)


@given(closed=closed_lists, groups=st.sets(st.sampled_from(GROUPS), max_size=2), question=st.sampled_from(QUESTIONS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_mode_returns_what_the_reader_may_not_read(
    session_graph: Graph, context: RetrievalContext, closed: dict[int, list[str]], groups: set[str], question: str
) -> None:
    ids = document_ids(session_graph)
    set_access(session_graph, {ids[i]: access for i, access in closed.items()}, context)
    reader = Reader.of(["reader-1", *groups])
    chunks, entities = readable_world(session_graph, reader)
    for mode in mode_names():
        result = retrieve_as(context, mode, question, 5, reader)
        assert_within(result, chunks, entities)
        assert len(result.chunks) <= 5
    assert_views_within(context, reader, chunks, entities)


NAMES = ("Lumen Labs", "Paradigm Ventures", "Ada Park", "Berlin", "Kestrel Motors")


def assert_views_within(context: RetrievalContext, reader: Reader, chunks: dict[str, str], entities: set[str]) -> None:
    """The entity lookup, neighbourhoods and paths a reader is shown name only what its readable chunks support."""
    settings, graph = context.settings, context.require_graph()
    scope = reader_scope(context, reader)
    texts = [f" {normalise_name(text)} " for text in chunks.values()]
    for name in NAMES:
        for hit in find_entities(graph, settings, name, 10, None, scope).entities:
            assert hit.key in entities, ("lookup", name, hit)
            for alias in hit.aliases:  # the name written another way, or learned from a readable chunk: written there
                said = normalise_name(alias)
                assert said == normalise_name(hit.name) or any(f" {said} " in text for text in texts), ("alias", hit)
    facts: list[GraphFact] = []
    for name in NAMES:
        try:
            facts += [f for hop in entity_neighborhood(graph, settings, name, 2, 50, scope).hops for f in hop.facts]
        except ApiError as refused:
            assert refused.status in (404, 409)
    for source, target in zip(NAMES, NAMES[1:], strict=False):
        try:
            facts += [step.fact for step in entity_path(graph, settings, source, target, 4, scope).steps]
        except ApiError as refused:
            assert refused.status in (404, 409, 422)
    for fact in facts:
        assert fact.chunk_ids and set(fact.chunk_ids) <= set(chunks), fact
        assert {fact.subject_key, fact.object_key} <= entities, fact
        for sentence, chunk_id in zip(fact.evidence, fact.chunk_ids, strict=False):
            assert " ".join(sentence.split())[:40] in " ".join(chunks[chunk_id].split()), fact


def test_an_unrestricted_reader_gets_the_mode_unchanged_and_a_reader_sees_what_its_group_opens(
    session_graph: Graph, context: RetrievalContext
) -> None:
    ids = document_ids(session_graph)
    set_access(session_graph, {}, context)
    question = QUESTIONS[0]
    for mode in ("graph", "bm25", "joint"):
        plain = context.retriever(mode).retrieve(question, top_k=5)
        as_everyone = retrieve_as(context, mode, question, 5, EVERYONE)
        assert [c.chunk_id for c in as_everyone.chunks] == [c.chunk_id for c in plain.chunks]
    # close every document that the answer's chunks come from to finance; outsiders lose them, finance keeps them
    before = retrieve_as(context, "joint", question, 5, Reader.of(["x"]))
    top = {c.document_id for c in before.chunks[:2]}
    set_access(session_graph, {i: ["finance"] for i in ids if i in top}, context)
    outsider = retrieve_as(context, "joint", question, 5, Reader.of(["x"]))
    insider = retrieve_as(context, "joint", question, 5, Reader.of(["finance"]))
    assert not {c.document_id for c in outsider.chunks} & top
    assert {c.document_id for c in insider.chunks} & top
    answer = context.answerer("extractive").answer(question, outsider)
    assert not {c.chunk_id for c in answer.citations} & {c.chunk_id for c in before.chunks[:2]}
    set_access(session_graph, {}, context)


@pytest.fixture
def team(tmp_path: Path) -> Team:
    team = make_team(tmp_path / "auth.sqlite")
    ops.add_member(team.store, LOCAL, "rita", "finance")
    return team


@pytest.fixture
def client(session_graph: Graph, demo_settings: Settings, tmp_path: Path, team: Team) -> Iterator[TestClient]:
    settings = demo_settings.model_copy(
        update={"ingest_state_path": tmp_path / "state", "auth_mode": AuthMode.PRINCIPALS,
                "auth_store_path": tmp_path / "auth.sqlite"}
    )  # fmt: skip
    set_access(session_graph, {})
    with TestClient(create_app(settings), headers={"X-API-Key": team.reader_key}) as client:
        yield client
    set_access(session_graph, {})


def put_access(client: TestClient, key: str, document_id: str, access: list[str] | None) -> Any:
    return client.put(f"/v1/documents/{document_id}/access", json={"access": access}, headers={"X-API-Key": key})


def test_the_documents_api_hides_what_the_caller_may_not_read(
    client: TestClient, team: Team, session_graph: Graph
) -> None:
    first, second = document_ids(session_graph)[:2]
    assert put_access(client, team.writer_key, first, ["legal"]).status_code == 403  # the admin's to change
    assert put_access(client, team.admin_key, first, ["bad name"]).status_code == 422
    assert put_access(client, team.admin_key, "no-such-document", ["legal"]).status_code == 404
    changed = put_access(client, team.admin_key, first, ["legal"])
    assert changed.status_code == 200 and changed.json()["access"] == ["legal"] and changed.json()["chunks"] >= 1
    assert put_access(client, team.admin_key, second, ["finance"]).status_code == 200

    total = client.get("/v1/documents", params={"limit": 100}).json()
    listed = {d["id"] for d in total["items"]}
    assert first not in listed and second in listed and total["total"] == len(document_ids(session_graph)) - 1
    hidden, unknown = client.get(f"/v1/documents/{first}"), client.get("/v1/documents/no-such-document")
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["error"]["code"] == unknown.json()["error"]["code"] == "not_found"
    assert client.get(f"/v1/documents/{second}").json()["access"] == ["finance"]
    admin = client.get(f"/v1/documents/{first}", headers={"X-API-Key": team.admin_key})
    assert admin.status_code == 200 and admin.json()["access"] == ["legal"]

    asked = client.post("/v1/retrieve", json={"question": QUESTIONS[0], "top_k": 10, "include_context": True})
    assert asked.status_code == 200, asked.text
    first_chunks = {row["id"] for row in session_graph.read("documents/chunks", document_id=first, readers=None)}
    assert not {c["chunk_id"] for c in asked.json()["chunks"]} & first_chunks
    assert not {cid for fact in asked.json()["facts"] for cid in fact["chunk_ids"]} & first_chunks
    found = client.get("/v1/entities", params={"q": "Lumen"})
    assert found.status_code == 200 and found.json()["entities"], found.text  # cut to what it may read, not refused
    assert client.get("/v1/entities", params={"q": "Lumen"}, headers={"X-API-Key": team.admin_key}).status_code == 200
    counted = client.get("/v1/graph/stats")  # of what it may read
    whole = client.get("/v1/graph/stats", headers={"X-API-Key": team.admin_key}).json()
    assert counted.status_code == 200, counted.text
    labels, types = counted.json()["labels"], counted.json()["relationship_types"]
    assert labels["Document"] == whole["labels"]["Document"] - 1
    assert labels["Chunk"] == whole["labels"]["Chunk"] - len(first_chunks)
    assert types["HAS_CHUNK"] == labels["Chunk"] and types["MENTIONS"] < whole["relationship_types"]["MENTIONS"]
    assert put_access(client, team.admin_key, first, None).json()["access"] is None
    assert client.get(f"/v1/documents/{first}").status_code == 200


def test_access_lists_travel_with_an_export_and_a_bad_one_is_refused_by_line(
    session_graph: Graph, demo_settings: Settings, context: RetrievalContext, tmp_path: Path
) -> None:
    first = document_ids(session_graph)[0]
    set_access(session_graph, {first: ["legal"]}, context)
    settings = demo_settings.model_copy(update={"store_lock_dir": tmp_path / "locks"})
    exchange = GraphExchange(settings, lambda: session_graph, load_schema())
    lines = list(exchange.export_lines())
    set_access(session_graph, {}, context)
    exchange.import_lines(lines)  # merges the file's properties back: the list returns on the document and chunks
    assert session_graph.read("documents/get", document_id=first, readers=None)[0]["access"] == ["legal"]
    hidden = session_graph.read("documents/chunks", document_id=first, readers=["someone"])
    assert hidden == [] and session_graph.read("documents/chunks", document_id=first, readers=["legal"])

    bad = [json.loads(line) for line in lines]
    number = next(i for i, row in enumerate(bad) if row.get("label") == "Document" and row.get("key") == first)
    bad[number]["properties"]["access"] = "legal"  # a string, not a list of names
    with pytest.raises(ExchangeError) as refused:
        exchange.import_lines([json.dumps(row) for row in bad])
    errors = [str(e) for e in refused.value.errors]  # the header's count of valid Document lines is off by one too
    assert f"line {number + 1}: properties.access: access must be a list of group or principal names" in errors
    set_access(session_graph, {}, context)


VAULT = [
    {
        "title": f"Vault memo {n}",
        "body": " ".join([question] * 3 + [f"Vault memo {n} is kept for the vault group alone."]),
        "source": "Vault Wire",
        "published_at": "2026-03-05",
        "url": f"https://vault.example/memo-{n}",
        "access": ["vault"],
    }
    for n, question in enumerate(QUESTIONS[:3])
]


def seen(result: RetrievalResult) -> tuple[Any, ...]:
    """What a reader is shown, in order: chunks with scores (to float32's precision: `vector` is Chroma's search for
    a reader of everything and an exact one over a restricted reader's scope), facts with their chunks and evidence,
    entities."""
    return (
        [(c.chunk_id, round(c.score, 5)) for c in result.chunks],
        [(f.subject, f.relationship, f.object, f.chunk_ids, f.evidence) for f in result.facts],
        [e.key for e in result.entities],
        result.abstain_reason,
    )


def test_unreadable_documents_do_not_decide_what_a_reader_sees(
    session_graph: Graph, demo_settings: Settings, context: RetrievalContext
) -> None:
    """Documents that repeat the questions themselves, closed to the reader, change every mode's ranking for a
    reader who may read them and nothing, in any mode, for one who may not: rankings are computed over the reader's
    scope (retrieval/scope.py), not cut from the store's. Last in the module: it adds documents to its store."""
    set_access(session_graph, {}, context)
    outsider, everyone = Reader.of(["reader-1", "finance"]), EVERYONE
    modes = mode_names()
    before = {(m, q): seen(retrieve_as(context, m, q, 5, outsider)) for m in modes for q in QUESTIONS[:3]}
    views_before = views(context, outsider)
    open_before = {(m, q): seen(retrieve_as(context, m, q, 5, everyone)) for m in modes for q in QUESTIONS[:3]}
    ingest_documents(session_graph, demo_settings, VAULT)
    bump(session_graph)
    context.refresh()
    changed = {key for key in open_before if seen(retrieve_as(context, *key, 5, everyone)) != open_before[key]}
    assert {m for m, _ in changed} >= {"bm25", "fused", "flat_plus", "vector", "ppr", "joint"}, changed
    after = {(m, q): seen(retrieve_as(context, m, q, 5, outsider)) for m in modes for q in QUESTIONS[:3]}
    assert after == before
    assert views(context, outsider) == views_before


def views(context: RetrievalContext, reader: Reader) -> tuple[Any, ...]:
    """The entity lookups and two-hop neighbourhoods of NAMES as `reader` is shown them."""
    settings, graph = context.settings, context.require_graph()
    scope = reader_scope(context, reader)
    hits = [find_entities(graph, settings, name, 10, None, scope).model_dump() for name in NAMES]
    around = [entity_neighborhood(graph, settings, name, 2, 50, scope).model_dump() for name in NAMES[:3]]
    return hits, around


OPEN_NOTE = {
    "title": "Harbor Forge (company)",
    "body": "Harbor Forge builds electric ferries in Oslo. Harbor Forge supplies Lumen Labs with hull sensors.",
    "source": "Open Wire",
    "published_at": "2026-03-06",
    "url": "https://open.example/harbor-forge",
}
CLOSED_NOTE = {
    "title": "Ferry memo",
    "body": "Lumen Labs will buy ferries from Harbor Forge, the memo says. Harbor Forge asked for an advance.",
    "source": "Vault Wire",
    "published_at": "2026-03-07",
    "url": "https://vault.example/ferry-memo",
    "access": ["vault"],
}


def test_a_reader_is_shown_the_aliases_its_readable_documents_taught(
    session_graph: Graph, demo_settings: Settings, context: RetrievalContext
) -> None:
    """Each mention records the names it taught its entity: a closed memo that also names Harbor Forge does not take
    away from a reader of the open page the short name that page taught it (with one rule for all mentions, an
    entity any unreadable chunk mentions would lose every alias). After the invariance test: it adds documents."""
    ingest_documents(session_graph, demo_settings, [OPEN_NOTE])
    ingest_documents(session_graph, demo_settings, [CLOSED_NOTE])
    set_access(session_graph, {}, context)
    memo = next(i for i in document_ids(session_graph) if i.endswith("ferry-memo"))
    set_access(session_graph, {memo: ["vault"]}, context)
    graph, settings, name = context.require_graph(), context.settings, "Harbor Forge (company)"

    def aliases(reader: Reader) -> list[str]:
        found = find_entities(graph, settings, name, 3, None, reader_scope(context, reader)).entities
        return next(hit.aliases for hit in found if hit.name == name)

    outsider, insider = Reader.of(["reader-1", "finance"]), Reader.of(["reader-2", "vault"])
    assert reader_scope(context, outsider) is not None  # the memo is closed to the outsider
    assert aliases(EVERYONE) == aliases(insider) == aliases(outsider) == ["Harbor Forge"]


def test_stage_three_bounds_count_only_the_chunks_a_reader_may_read(
    session_graph: Graph, context: RetrievalContext
) -> None:
    """retrieve/facts keeps the best supported relationships of a matched entity up to its bounds: for a restricted
    reader, support is counted in readable chunks, so a relationship only closed documents support cannot take the
    place of one the reader may read (with the store-wide count, the one place below goes to the closed fact and
    the reader gets none)."""
    set_access(session_graph, {}, context)
    bounds = {
        "keys": ["Organization:lumen labs"], "sources": [], "windows": [], "key_limit": 0, "bridge_scan": 0,
        "two_hop_fanout": 0, "two_hop_max_degree": 5000, "chunks_per_fact": 100, "two_hop_per_entity": 0,
    }  # fmt: skip
    [row] = session_graph.read("retrieve/facts", **bounds, direct_per_entity=50, lists=None)
    facts = row["facts"]
    [row] = session_graph.read("retrieve/facts", **bounds, direct_per_entity=1, lists=None)
    [top] = row["facts"]  # the best supported over the whole store
    shown = session_graph.read("retrieve/chunks_by_id", ids=top["chunk_ids"])
    set_access(session_graph, {r["document_id"]: ["vault"] for r in shown}, context)
    readable, _ = readable_world(session_graph, Reader.of(["reader-1", "finance"]))
    support = {(f["subject_key"], f["relationship"], f["object_key"]): len(set(f["chunk_ids"]) & set(readable))
               for f in facts}  # fmt: skip
    assert support[(top["subject_key"], top["relationship"], top["object_key"])] == 0 < max(support.values())
    [row] = session_graph.read("retrieve/facts", **bounds, direct_per_entity=1, lists=[])
    [kept] = row["facts"]
    assert set(kept["chunk_ids"]) <= set(readable)
    assert len(kept["chunk_ids"]) == support[(kept["subject_key"], kept["relationship"], kept["object_key"])]
    assert len(kept["chunk_ids"]) == max(support.values())


def test_the_hub_bound_counts_only_what_a_reader_may_read(session_graph: Graph, context: RetrievalContext) -> None:
    """A neighbour with more relationships than $two_hop_max_degree is a hub whose own facts are not expanded; for a
    restricted reader its relationships are counted in what it may read, so a closed document mentioning it cannot
    turn it into a hub for that reader (with the store-wide count, its readable two-hop facts were lost)."""
    set_access(session_graph, {}, context)
    key = "Organization:lumen labs"
    [busiest] = session_graph.read("check/busiest_neighbour", key=key)
    bounds = {
        "keys": [key], "sources": [], "windows": [], "key_limit": 0, "bridge_scan": 0, "direct_per_entity": 0,
        "two_hop_fanout": 50, "chunks_per_fact": 100, "two_hop_per_entity": 50,
    }  # fmt: skip

    def through_hub(degree: int, lists: list[list[str]] | None) -> set[tuple[str, str, str]]:
        [row] = session_graph.read("retrieve/facts", **bounds, two_hop_max_degree=degree, lists=lists)
        return {(f["subject_key"], f["relationship"], f["object_key"]) for f in row["facts"]
                if busiest["key"] in (f["subject_key"], f["object_key"])}  # fmt: skip

    degree = busiest["degree"]
    expanded, cut = through_hub(degree, None), through_hub(degree - 1, None)
    assert cut < expanded  # one relationship fewer allowed: a hub, whose own facts are not read
    for document in busiest["documents"]:  # close a document that mentions it, the first that leaves such facts
        set_access(session_graph, {document: ["vault"]}, context)
        readable = through_hub(degree, [])
        if readable - cut:
            break
    assert readable - cut, "every fact through the neighbour came from a document that mentions it"
    assert through_hub(degree - 1, []) == readable  # fewer readable relationships: not a hub for this reader
    assert through_hub(degree - 1, None) == cut  # still one for whoever reads everything
    set_access(session_graph, {}, context)


def test_a_reader_of_every_document_is_counted_as_the_whole_graph(
    session_graph: Graph, context: RetrievalContext
) -> None:
    """access/graph_stats (a restricted caller's /v1/graph/stats) over every document gives the count store's
    numbers for each label and type it reports."""
    set_access(session_graph, {}, context)
    whole, mine = graph_stats(session_graph), graph_stats(session_graph, lists=[])
    assert {"Document", "Chunk", "Date", "Entity", "Publication"} <= set(mine.labels)
    assert {"HAS_CHUNK", "PUBLISHED_ON", "MENTIONS", "REPORTED_BY"} <= set(mine.relationship_types)
    assert mine.labels == {label: whole.labels[label] for label in mine.labels}
    assert mine.relationship_types == {t: whole.relationship_types[t] for t in mine.relationship_types}
