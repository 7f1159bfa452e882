"""Reads ready for a Neo4j cluster, against the real test Neo4j.

1. A realistic flow through the product (schema bootstrap, the documents API's ingest and delete, every retrieval
   mode, the graph views, export and import, curation's preview, apply, undo and the review queue) records, at the
   facade (`Graph._statement`, around every named statement it runs), which statement ran in which kind of
   transaction: a statement with a write clause only ever in WRITE, every other one only in READ. On a cluster the
   routing driver sends READ to secondaries and WRITE to the leader, so a write run as a read would fail there and a
   read run as a write would load the leader.
2. The product through a `neo4j://` URI (the routing driver; a Neo4j 5 single instance answers routing requests with
   itself, at the address it advertises): a posted document is read back and answers the next question.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from neo4j import Neo4jDriver
from support.jobs import wait_for_job
from support.statement_kinds import kind_of
from support.statements import TEST_CATALOGUE

from graphwire import cypher
from graphwire.app.main import create_app
from graphwire.core.clients.graph import READ, WRITE, Access, Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"
QUESTIONS = [
    "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?",
    "Which company did Orbital Freight acquire?",
]
ROUND, CEO = 0, 1  # demo records: Paradigm invests in Lumen Labs (Circuit Weekly), Ada Park named CEO (Ledger Daily)

Recorded = dict[str, set[Access]]


def demo_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def recorded(graph: Graph, monkeypatch: pytest.MonkeyPatch) -> Recorded:
    """Statement name -> the kinds of transaction it ran in, from every Graph of this process (the app's included)."""
    ran: Recorded = defaultdict(set)
    around = Graph._statement

    @contextmanager
    def recording(self: Graph, name: str, access: Access) -> Iterator[None]:
        ran[name].add(access)
        with around(self, name, access):
            yield

    monkeypatch.setattr(Graph, "_statement", recording)
    return ran


def _settings(neo4j_settings: Settings, tmp_path: Path, **update: Any) -> Settings:
    return neo4j_settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state", **update}
    )


def _ok(response: Any) -> Any:
    assert response.status_code in (200, 202, 204), response.text
    return response.json() if response.status_code != 204 else None


def _ingest(client: TestClient, records: list[dict[str, Any]]) -> None:
    posted = _ok(client.post("/v1/documents", json={"documents": records}))
    job = wait_for_job(client, posted["job_id"])
    assert job["state"] == "succeeded" and job["failures"] == [], job


def _read_everything(client: TestClient) -> None:
    """Every retrieval mode on a few questions, an answer, and the graph views."""
    modes = _ok(client.get("/v1/modes"))["modes"]
    assert len(modes) > 1
    for mode in modes:
        for question in QUESTIONS:
            _ok(client.post("/v1/retrieve", json={"question": question, "mode": mode}))
    assert _ok(client.post("/v1/query", json={"question": QUESTIONS[0], "answerer": "extractive"}))["answer"]
    listed = _ok(client.get("/v1/documents"))
    assert listed["total"] == len(demo_records())
    _ok(client.get("/v1/documents/" + quote(listed["items"][0]["id"], safe="")))
    assert _ok(client.get("/v1/entities", params={"q": "Lumen Labs"}))["entities"]
    _ok(client.get("/v1/graph/stats"))
    assert _ok(client.get("/v1/graph/neighborhood", params={"entity": "Lumen Labs", "hops": 2}))
    path = {"source": "Person:ada park", "target": _key(client, "Paradigm Ventures")}
    assert _ok(client.get("/v1/graph/path", params=path))["steps"]


def _key(client: TestClient, name: str) -> str:
    return str(_ok(client.get("/v1/entities", params={"q": name}))["entities"][0]["key"])


def _exchange(client: TestClient) -> None:
    lines = client.get("/v1/graph/export").text.splitlines()
    assert len(lines) > 1
    header = json.dumps({**json.loads(lines[0]), "counts": None})
    node = {"kind": "node", "label": "Person", "key": "Person:ada park", "properties": {"aliases": ["Ada P."]}}
    assert _ok(client.post("/v1/graph/import", content=f"{header}\n{json.dumps(node)}\n"))["nodes"] == {"Person": 1}


def _curate(client: TestClient) -> None:
    lumen, corvid = _key(client, "Lumen Labs"), _key(client, "Corvid Silicon")
    body = {"edit": {"kind": "alias", "key": lumen, "alias": "Lumen"}, "by": "ana"}
    assert _ok(client.post("/v1/graph/edits", params={"dry_run": True}, json=body))["applied"] is False
    edit_id = _ok(client.post("/v1/graph/edits", json=body))["record"]["id"]
    assert [e["id"] for e in _ok(client.get("/v1/graph/edits", params={"entity": lumen}))] == [edit_id]
    _ok(client.get(f"/v1/graph/edits/{edit_id}"))
    _ok(client.post(f"/v1/graph/edits/{edit_id}/undo", json={"by": "ana"}))
    _ok(client.get("/v1/graph/edits/candidates"))
    _ok(client.post("/v1/graph/edits/candidates/reject", json={"a": lumen, "b": corvid, "by": "ana"}))
    assert len(_ok(client.get("/v1/graph/edits/candidates/rejections"))) == 1
    _ok(client.post("/v1/graph/edits/candidates/unreject", json={"a": lumen, "b": corvid}))


def test_every_statement_runs_in_the_kind_of_transaction_its_clauses_need(
    recorded: Recorded, graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    apply_schema(graph)
    with TestClient(create_app(_settings(neo4j_settings, tmp_path))) as client:
        _ingest(client, demo_records())
        _read_everything(client)
        _exchange(client)
        _curate(client)
        deleted = _ok(client.delete("/v1/documents/" + quote(demo_records()[CEO]["url"], safe="")))
        assert deleted["deleted"] is True

    wrong = {name: kinds for name, kinds in recorded.items() if kinds != {kind_of(TEST_CATALOGUE.query(name))}}
    assert wrong == {}
    assert {kind for kinds in recorded.values() for kind in kinds} == {READ, WRITE}  # the recording saw both
    # the call sites whose statement name is computed (tests/unit/test_statement_kinds.py, DYNAMIC) ran
    assert {n for n, _ in cypher.statements_in("schema")} <= set(recorded)
    assert [n for n in recorded if n.startswith("exchange/") and n.endswith("_page")]
    assert [n for n in recorded if n.startswith("exchange/import_")]
    assert [n for n in recorded if n.startswith("graph/shortest_path_")]
    # and the three ways the facade runs a statement: execute_query, a managed read (the PPR snapshot), auto-commit
    assert {"ingest/merge_entities", "graph/snapshot", "store/bump_version"} <= set(recorded)


def test_the_product_works_through_a_routing_neo4j_uri(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    address = neo4j_settings.neo4j_uri.split("://", 1)[1]
    settings = _settings(neo4j_settings, tmp_path, neo4j_uri=f"neo4j://{address}", graph_fill_mode="none")
    records = demo_records()
    with TestClient(create_app(settings)) as client:
        served: Graph = client.app.state.graph_provider.get()  # type: ignore[attr-defined]
        assert isinstance(served.driver, Neo4jDriver)  # the routing driver, not the direct bolt:// one
        _ingest(client, [records[ROUND], records[CEO]])
        detail = _ok(client.get("/v1/documents/" + quote(records[CEO]["url"], safe="")))
        assert detail["title"] == records[CEO]["title"] and detail["committed"]
        asked = _ok(client.post("/v1/query", json={"question": QUESTIONS[0], "answerer": "extractive"}))
        assert asked["answer"] == "Ada Park"
        assert _ok(client.get("/v1/documents"))["total"] == 2
