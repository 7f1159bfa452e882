"""The /v1 query API contract over real Neo4j: answers with facts and citations, abstention, bad input, API key,
Neo4j outage (503) and request timeout (504)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.models import ABSTENTION

pytestmark = pytest.mark.integration
SUPPLY_QUESTION = "Which company supplies the supplier of Kestrel Motors?"


def _client(settings: Settings, tmp: Path, **overrides: Any) -> TestClient:
    app_settings = settings.model_copy(update={"chroma_path": tmp / "chroma", **overrides})
    return TestClient(create_app(app_settings))


@pytest.fixture(scope="module")
def client(
    chains_graph: Graph, neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with _client(neo4j_settings, tmp_path_factory.mktemp("api"), max_question_chars=200, max_top_k=20) as client:
        yield client


def test_query_answers_a_multi_hop_question_with_facts_and_citations(client: TestClient) -> None:
    response = client.post("/v1/query", json={"question": SUPPLY_QUESTION, "answerer": "extractive"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["answer"], body["answerer"], body["abstained"]) == ("Quarrow Minerals", "extractive", False)
    assert body["entities"] == [
        {"mention": "Kestrel Motors", "node": "Kestrel Motors", "key": "Organization:kestrel motors",
         "label": "Organization", "tier": "exact", "score": 100.0}
    ]  # fmt: skip
    facts = {(f["tier"], f["subject"], f["relationship"], f["object"]) for f in body["facts"]}
    assert ("DIRECT", "Quarrow Minerals", "SUPPLIES", "Brightcell Energy") in facts
    [citation] = body["citations"]
    assert citation["title"] == "Quarrow Minerals doubles lithium refining for its biggest customer"
    assert (citation["publication"], citation["published_at"]) == ("Northgate Daily", "2024-02-20")
    assert citation["chunk_id"] in {c["chunk_id"] for c in body["chunks"]}
    stages = {"graph.aliases", "graph.matching", "graph.templates", "graph.filtering", "answer", "total"}
    assert stages <= set(body["timings_ms"])
    assert body["usage"] == {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    assert "text" not in body["chunks"][0]  # context only on request


def test_query_abstains_on_the_unanswerable_question(client: TestClient) -> None:
    body = client.post("/v1/query", json={"question": "Who is the chief executive of Pellucid Robotics?"}).json()
    assert (body["answer"], body["abstained"], body["citations"], body["entities"]) == (ABSTENTION, True, [], [])
    assert body["abstain_reason"] == "no question entity or publication matched a graph node"
    assert body["analysis"] == {"yes_no": False, "outlets": [], "unknown_publications": []}


def test_retrieve_returns_context_without_answering(client: TestClient) -> None:
    question = "Who sits on the boards of both Lumen Labs and Corvid Analytics?"
    body = client.post("/v1/retrieve", json={"question": question, "top_k": 1, "include_context": True}).json()
    assert "answer" not in body and len(body["chunks"]) == 1
    assert "Corvid Analytics competes with Lumen Labs" in body["chunks"][0]["text"]
    bridge = [f for f in body["facts"] if f["tier"] == "BRIDGE"]
    assert {f["subject"] for f in bridge} == {"Mara Ellison"} and all(f["evidence"] for f in bridge)
    excerpts = body["excerpts"]  # the passages the answerer would get, only with include_context
    assert excerpts and {"chunk_id", "title", "text"} <= set(excerpts[0]) and "abstain_reason" not in body
    lean = client.post("/v1/retrieve", json={"question": question, "top_k": 1}).json()
    assert "excerpts" not in lean and lean["analysis"]["yes_no"] is False


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({}, "question"),
        ({"question": "   "}, "blank"),
        ({"question": "x" * 201}, "limit is 200"),
        ({"question": "Who?", "top_k": 21}, "limit is 20"),
        ({"question": "Who?", "top_k": 0}, "top_k"),
        ({"question": "Who?", "mode": "telepathy"}, "'graph'"),  # the enum's message lists the modes
        ({"question": "Who?", "colour": "blue"}, "colour"),
        ({"question": "Who?", "answerer": "llm"}, "LLM_BASE_URL"),
    ],
)
def test_bad_input_is_a_422_with_a_clear_message(client: TestClient, payload: dict[str, Any], fragment: str) -> None:
    response = client.post("/v1/query", json=payload)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert fragment in (error["message"] + str(error.get("details")))


def test_entity_lookup_and_graph_stats(client: TestClient, chains_graph: Graph) -> None:
    hits = client.get("/v1/entities", params={"q": "kestrel"}).json()["entities"]
    assert [(h["name"], h["label"], h["tier"]) for h in hits] == [
        ("Kestrel Motors", "Organization", "exact"),  # "Kestrel" is one of its aliases
        ("Kestrel K2", "Product", "prefix"),
    ]
    assert "Kestrel" in hits[0]["aliases"]
    only_products = client.get("/v1/entities", params={"q": "kestrel", "label": "Product"}).json()["entities"]
    assert [h["name"] for h in only_products] == ["Kestrel K2"]
    assert client.get("/v1/entities", params={"q": "kestrel", "label": "Spaceship"}).status_code == 422

    stats = client.get("/v1/graph/stats").json()
    organizations = chains_graph.read("check/count_label", label="Organization")[0]["n"]
    supplies = chains_graph.read("check/count_type", type="SUPPLIES")[0]["n"]
    assert stats["labels"]["Organization"] == organizations > 0
    assert stats["relationship_types"]["SUPPLIES"] == supplies == 2


def test_api_key_protects_every_v1_route(chains_graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    with _client(neo4j_settings, tmp_path, api_key=SecretStr("s3cret-key")) as client:
        body = {"question": SUPPLY_QUESTION}
        assert client.post("/v1/query", json=body).status_code == 401
        assert client.post("/v1/query", json=body, headers={"X-API-Key": "wrong"}).status_code == 401
        assert client.get("/v1/entities", params={"q": "kestrel"}).status_code == 401
        assert client.post("/v1/query", json=body, headers={"X-API-Key": "s3cret-key"}).status_code == 200


def test_neo4j_outage_is_a_503(neo4j_settings: Settings, tmp_path: Path) -> None:
    with socket.socket() as held:  # bound, never listening: connections are refused and no one else can take it
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        down = {"neo4j_uri": f"bolt://127.0.0.1:{port}", "neo4j_password": neo4j_settings.neo4j_password}
        _assert_503(_client(neo4j_settings, tmp_path, **down))


def _assert_503(client: TestClient) -> None:
    with client:
        response = client.post("/v1/query", json={"question": SUPPLY_QUESTION})
        assert response.status_code == 503
        assert response.json()["error"]["code"].startswith("neo4j")
        assert client.get("/v1/graph/stats").status_code == 503


def test_request_timeout_is_a_504(chains_graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    with _client(neo4j_settings, tmp_path, request_timeout_s=0.000001) as client:
        response = client.post("/v1/retrieve", json={"question": SUPPLY_QUESTION})
        assert response.status_code == 504
        assert response.json()["error"]["code"] == "timeout"
