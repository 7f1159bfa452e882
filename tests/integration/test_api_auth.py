"""AUTH_MODE=principals over real Neo4j and Chroma: a reader asks, a writer adds, and every refused request (no key,
a bad key, a reader writing) stores nothing: the documents and the exported graph are the same after it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.auth import Team, make_team
from support.jobs import wait_for_job

from graphwire.app.auth import operations as ops
from graphwire.app.main import create_app
from graphwire.core.auth.keys import new_key
from graphwire.core.auth.models import LOCAL
from graphwire.core.auth.store import now
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import AuthMode, Settings

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"


def demo_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return make_team(tmp_path / "auth.sqlite")


@pytest.fixture
def client(graph: Graph, neo4j_settings: Settings, tmp_path: Path, team: Team) -> Iterator[TestClient]:
    settings = neo4j_settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state",
                "auth_mode": AuthMode.PRINCIPALS, "auth_store_path": tmp_path / "auth.sqlite"}
    )  # fmt: skip
    with TestClient(create_app(settings), headers={"X-API-Key": team.writer_key}) as client:
        yield client


def stored(client: TestClient, team: Team) -> tuple[int, str]:
    """The number of documents and the whole graph as exported, read by the admin."""
    admin = team.headers(team.admin_key)
    documents = client.get("/v1/documents", headers=admin)
    export = client.get("/v1/graph/export", headers=admin)
    assert documents.status_code == 200 and export.status_code == 200, (documents.text, export.text)
    return documents.json()["total"], export.text


def test_readers_read_writers_write_and_refusals_store_nothing(client: TestClient, team: Team) -> None:
    first, second, *_ = demo_records()
    posted = client.post("/v1/documents", json={"documents": [first]})  # the writer's key (the client's default)
    assert posted.status_code == 202, posted.text
    assert wait_for_job(client, posted.json()["job_id"])["state"] == "succeeded"
    before = stored(client, team)
    assert before[0] == 1

    reader = team.headers(team.reader_key)
    asked = client.post("/v1/query", json={"question": "Who invested in Lumen Labs?", "answerer": "extractive"},
                        headers=reader)  # fmt: skip
    assert asked.status_code == 200, asked.text
    assert client.get("/v1/documents", headers=reader).json()["total"] == 1
    assert client.get("/v1/graph/export", headers=reader).status_code == 200

    rita = team.store.principal("rita")
    assert rita is not None
    expired = new_key()
    team.store.add_key("test", rita.id, expired, expires_at=now() - timedelta(minutes=1))
    revoked = ops.create_key(team.store, LOCAL, "wendy", ops.NewKey())
    ops.revoke_key(team.store, LOCAL, revoked.record.id)
    refusals = {
        "no key": ({"X-API-Key": ""}, 401), "malformed": ({"X-API-Key": "gw_???"}, 401),
        "unknown": ({"X-API-Key": f"gw_{'f' * 16}_{'B' * 43}"}, 401), "expired": ({"X-API-Key": expired.text}, 401),
        "revoked": ({"X-API-Key": revoked.key}, 401), "reader": (reader, 403),
    }  # fmt: skip
    body = {"documents": [second]}
    for name, (headers, status) in refusals.items():
        answer = client.post("/v1/documents", json=body, headers=headers)
        assert answer.status_code == status, (name, answer.text)
        deleted = client.delete(f"/v1/documents/{first['url']}", headers=headers)
        assert deleted.status_code == status, (name, deleted.text)
        imported = client.post("/v1/graph/import", content=before[1], headers=headers)
        assert imported.status_code == status, (name, imported.text)
    jobs = client.get("/v1/jobs", headers=team.headers(team.admin_key)).json()
    assert len(jobs) == 1  # no refused request queued a job
    assert stored(client, team) == before
