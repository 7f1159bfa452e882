"""The audit log of document and graph writes over real Neo4j and Chroma: in AUTH_MODE=principals a writer adds,
replaces and deletes a document and an admin reads who did it and how each job ended; a reader's refused add records
nothing; a graph edit and its undo name the edit and the principal (also as the edit log's `by`); the MCP tool
`add_documents` records what POST /v1/documents records; with AUTH_MODE=none the anonymous caller is recorded; the CLI
records its edits as the local operator; and no stored row holds a key, a token or a document's text."""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi.testclient import TestClient
from support.auth import AUDIENCE, ISSUER, Team, jwk, jwks_server, make_team, private_key, token
from support.chains import ingest_chains
from support.jobs import wait_for_job

from graphwire.app.auth import operations as ops
from graphwire.app.main import create_app
from graphwire.core.auth.models import LOCAL, Role
from graphwire.core.auth.store import SqlitePrincipalStore
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import AuthMode, Settings

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo" / "articles.jsonl"
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LUMEN, CORVID = "Organization:lumen labs", "Organization:corvid analytics"


def demo_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def issuer() -> Iterator[tuple[rsa.RSAPrivateKey, str]]:
    key = private_key()
    with jwks_server([jwk(key, "k1")]) as url:
        yield key, url


@pytest.fixture
def team(tmp_path: Path) -> Team:
    team = make_team(tmp_path / "auth.sqlite")
    ops.add_principal(team.store, LOCAL, ops.NewPrincipal(name="olga", subject="olga-sub"))
    ops.grant(team.store, LOCAL, ops.GrantRequest(principal="olga", role=Role.WRITER))
    return team


def app_settings(neo4j_settings: Settings, tmp_path: Path, **values: Any) -> Settings:
    paths = {"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state",
             "auth_store_path": tmp_path / "auth.sqlite", "mcp_allow_writes": True}  # fmt: skip
    return neo4j_settings.model_copy(update={**paths, **values})


@pytest.fixture
def client(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path, team: Team, issuer: tuple[rsa.RSAPrivateKey, str]
) -> Iterator[TestClient]:
    settings = app_settings(neo4j_settings, tmp_path, auth_mode=AuthMode.PRINCIPALS, oidc_issuer=ISSUER,
                            oidc_audience=AUDIENCE, oidc_jwks_url=issuer[1])  # fmt: skip
    with TestClient(create_app(settings), headers={"X-API-Key": team.writer_key}) as client:
        yield client


def audit(client: TestClient, team: Team, **params: str) -> list[dict[str, Any]]:
    """The audit log as a server admin reads it, newest first."""
    answer = client.get("/v1/auth/audit", params=params, headers=team.headers(team.admin_key))
    assert answer.status_code == 200, answer.text
    rows: list[dict[str, Any]] = answer.json()
    return rows


def raw_rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT * FROM audit ORDER BY id").fetchall()


def principal_id(team: Team, name: str) -> str:
    found = team.store.principal(name)
    assert found is not None
    return found.id


def test_document_writes_are_audited_with_the_writer_and_the_outcome(
    client: TestClient, team: Team, tmp_path: Path
) -> None:
    first, second, *_ = demo_records()
    wendy, rita = principal_id(team, "wendy"), principal_id(team, "rita")
    refused = client.post("/v1/documents", json={"documents": [second]}, headers=team.headers(team.reader_key))
    assert refused.status_code == 403
    assert audit(client, team, action="document.") == []
    assert audit(client, team, actor=rita) == []

    posted = client.post("/v1/documents", json={"documents": [first]})
    assert posted.status_code == 202, posted.text
    job_id = posted.json()["job_id"]
    assert wait_for_job(client, job_id)["state"] == "succeeded"
    [document] = client.get("/v1/documents").json()["items"]
    doc_id = document["id"]

    [added] = audit(client, team, target=doc_id)
    assert (added["action"], added["actor"], added["actor_name"], added["workspace"]) == (
        "document.add", wendy, "wendy", "default")  # fmt: skip
    assert added["detail"] == {"job_id": job_id, "title": first["title"], "source": first["source"]}
    [outcome] = audit(client, team, target=job_id)
    assert (outcome["action"], outcome["actor"]) == ("document.job.succeeded", wendy)
    assert outcome["detail"]["document_ids"] == [doc_id] and outcome["detail"]["documents_done"] == 1
    assert outcome["detail"]["state"] == "succeeded" and outcome["detail"]["error"] is None

    again = client.post("/v1/documents", json={"documents": [first]})  # the same url: it replaces the stored one
    assert wait_for_job(client, again.json()["job_id"])["state"] == "succeeded"
    assert [e["action"] for e in audit(client, team, target=doc_id)] == ["document.replace", "document.add"]

    assert (
        client.delete(f"/v1/documents/{quote(doc_id, safe='')}", headers=team.headers(team.reader_key)).status_code
        == 403
    )
    assert client.delete("/v1/documents/no-such-document").status_code == 404
    deleted = client.delete(f"/v1/documents/{quote(doc_id, safe='')}")
    assert deleted.status_code == 200, deleted.text
    latest = audit(client, team, target=doc_id)
    assert [e["action"] for e in latest] == ["document.delete", "document.replace", "document.add"]
    assert latest[0]["actor"] == wendy and latest[0]["detail"]["chunks"] == deleted.json()["chunks"]
    assert audit(client, team, actor=rita) == []  # the reader's refusals left nothing
    assert audit(client, team, target="no-such-document") == []
    events = audit(client, team, actor=wendy, action="document.")
    assert [e["action"] for e in events] == ["document.delete", "document.job.succeeded", "document.replace",
                                             "document.job.succeeded", "document.add"]  # fmt: skip

    rows = raw_rows(tmp_path / "auth.sqlite")
    stored = json.dumps(rows)
    for secret in (team.writer_key, team.reader_key, team.admin_key, first["body"], first["body"][:80]):
        assert secret not in stored
    assert len([row for row in rows if row[3].startswith("document.")]) == 5  # id, at, actor, action, ...


def test_a_graph_edit_and_its_undo_name_the_edit_and_the_principal(
    client: TestClient, team: Team, graph: Graph
) -> None:
    ingest_chains(graph)
    wendy = principal_id(team, "wendy")
    body = {"edit": {"kind": "merge", "survivor": LUMEN, "merged": CORVID}, "by": "someone else", "reason": "dupe"}
    preview = client.post("/v1/graph/edits", params={"dry_run": True}, json=body)
    assert preview.status_code == 200
    refused = client.post("/v1/graph/edits", json=body, headers=team.headers(team.reader_key))
    assert refused.status_code == 403
    assert audit(client, team, action="graph.") == []  # a dry run and a refusal are not writes

    applied = client.post("/v1/graph/edits", json=body)
    assert applied.status_code == 200, applied.text
    edit_id = applied.json()["record"]["id"]
    assert applied.json()["record"]["by"] == "wendy"  # the principal, not what the body claims
    undone = client.post(f"/v1/graph/edits/{edit_id}/undo", json={"reason": "not a dupe"})
    assert undone.status_code == 200, undone.text
    undo_id = undone.json()["record"]["id"]
    assert client.get(f"/v1/graph/edits/{undo_id}").json()["by"] == "wendy"

    [undo, edit] = audit(client, team, action="graph.")
    assert (edit["action"], edit["target"], edit["actor"], edit["actor_name"]) == (
        "graph.edit",
        edit_id,
        wendy,
        "wendy",
    )
    assert edit["detail"]["kind"] == "merge" and edit["detail"]["entities"]["removed"] == 1
    assert (undo["action"], undo["target"], undo["actor"]) == ("graph.undo", undo_id, wendy)
    assert undo["detail"]["undoes"] == edit_id and undo["detail"]["entities"]["added"] == 1

    pair = {"a": LUMEN, "b": CORVID, "reason": "two companies"}
    assert client.post("/v1/graph/edits/candidates/reject", json=pair).status_code == 200
    assert client.post("/v1/graph/edits/candidates/unreject", json=pair).status_code == 204
    assert client.post("/v1/graph/edits/candidates/unreject", json=pair).status_code == 404  # nothing to take back
    actions = [(e["action"], e["target"]) for e in audit(client, team, action="graph.")[:2]]
    assert actions == [("graph.unreject", f"{CORVID} | {LUMEN}"), ("graph.reject", f"{CORVID} | {LUMEN}")]

    exported = client.get("/v1/graph/export", params={"entity": LUMEN})
    imported = client.post("/v1/graph/import", content=exported.text, headers={"content-type": "application/x-ndjson"})
    assert imported.status_code == 200, imported.text
    [event] = audit(client, team, action="graph.import")
    assert event["actor"] == wendy and event["detail"]["lines"] == imported.json()["lines"]
    bad = client.post("/v1/graph/import", content="not a graph\n", headers={"content-type": "application/x-ndjson"})
    assert bad.status_code == 422
    assert len(audit(client, team, action="graph.import")) == 1


def test_the_mcp_tool_records_what_the_route_records(
    client: TestClient, team: Team, tmp_path: Path, issuer: tuple[rsa.RSAPrivateKey, str]
) -> None:
    first, second, *_ = demo_records()
    olga = principal_id(team, "olga")
    del client.headers["X-API-Key"]  # each request names its caller: a key would win over the bearer token
    bearer = token(issuer[0], "k1", sub="olga-sub")
    fields = ("title", "body", "source", "url", "published_at")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add_documents", "arguments": {
        "documents": [{k: second[k] for k in fields}], "wait_s": 120}}}  # fmt: skip
    refused = client.post("/mcp", json=call, headers={**MCP_HEADERS, "X-API-Key": team.reader_key})
    assert refused.json()["result"]["isError"]
    assert audit(client, team, action="document.") == []

    answer = client.post("/mcp", json=call, headers={**MCP_HEADERS, "Authorization": f"Bearer {bearer}"})
    assert answer.status_code == 200, answer.text
    job = answer.json()["result"]["structuredContent"]
    assert job["state"] == "succeeded", job
    posted = client.post("/v1/documents", json={"documents": [{k: first[k] for k in fields}]},
                         headers={"Authorization": f"Bearer {bearer}"})  # fmt: skip
    client.headers["X-API-Key"] = team.writer_key  # for the job polls
    assert wait_for_job(client, posted.json()["job_id"])["state"] == "succeeded"

    by_mcp, by_http = (audit(client, team, target=record["url"]) for record in (second, first))
    assert [e["action"] for e in by_mcp] == [e["action"] for e in by_http] == ["document.add"]
    for event, record, job_id in ((by_mcp[0], second, job["job_id"]), (by_http[0], first, posted.json()["job_id"])):
        assert (event["actor"], event["actor_name"], event["workspace"]) == (olga, "olga", "default")
        assert event["detail"] == {"job_id": job_id, "title": record["title"], "source": record["source"]}
        [outcome] = audit(client, team, target=job_id)
        assert outcome["action"] == "document.job.succeeded" and outcome["actor"] == olga
        assert outcome["detail"]["document_ids"] == [record["url"]]

    delete = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "delete_document", "arguments": {"id": second["url"]}}}  # fmt: skip
    assert not client.post("/mcp", json=delete, headers=MCP_HEADERS).json()["result"]["isError"]
    [deleted, _] = audit(client, team, target=second["url"])
    assert (deleted["action"], deleted["actor"]) == ("document.delete", principal_id(team, "wendy"))

    stored = json.dumps(raw_rows(tmp_path / "auth.sqlite"))
    for secret in (bearer, bearer.split(".")[2], team.writer_key, second["body"][:60], first["body"][:60]):
        assert secret not in stored


def test_with_auth_mode_none_writes_are_recorded_as_anonymous(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    first, *_ = demo_records()
    settings = app_settings(neo4j_settings, tmp_path, auth_mode=AuthMode.NONE, api_key=None)
    with TestClient(create_app(settings)) as client:
        posted = client.post("/v1/documents", json={"documents": [first]})
        assert posted.status_code == 202, posted.text
        job_id = posted.json()["job_id"]
        assert wait_for_job(client, job_id)["state"] == "succeeded"
        events = client.get("/v1/auth/audit", params={"action": "document."}).json()
    assert [(e["action"], e["actor"], e["actor_name"]) for e in events] == [
        ("document.job.succeeded", "anonymous", "anonymous"), ("document.add", "anonymous", "anonymous")]  # fmt: skip
    assert events[0]["target"] == job_id and events[1]["target"] == first["url"]
    assert first["body"][:60] not in json.dumps(raw_rows(tmp_path / "auth.sqlite"))


def test_the_cli_records_its_graph_edits_as_the_local_operator(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    ingest_chains(graph)
    audit_log = tmp_path / "cli-audit.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NEO4J_URI": neo4j_settings.neo4j_uri,
           "NEO4J_PASSWORD": neo4j_settings.resolved_neo4j_password(), "AUTH_STORE_PATH": str(audit_log),
           "STORE_LOCK_DIR": str(tmp_path / "locks"), "COLUMNS": "200"}  # fmt: skip

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphwire.cli.main", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=240)  # fmt: skip

    assert cli("edit", "merge", LUMEN, CORVID, "--dry-run").returncode == 0
    assert not audit_log.exists() or raw_rows(audit_log) == []  # a dry run writes nothing
    merged = cli("edit", "merge", LUMEN, CORVID, "--by", "ana", "--reason", "dupe")
    assert merged.returncode == 0, merged.stderr
    edit_id = merged.stdout.split("applied edit ")[1].split()[0]
    assert cli("edit", "undo", edit_id).returncode == 0
    events = SqlitePrincipalStore(audit_log).audit(action="graph.")
    assert [(e.action, e.actor, e.actor_name) for e in events] == [
        ("graph.undo", f"local:{getpass.getuser()}", "local operator"),
        ("graph.edit", f"local:{getpass.getuser()}", "local operator")]  # fmt: skip
    assert events[1].target == edit_id and events[1].detail["by"] == "ana"  # the CLI's --by is the edit log's
    assert events[0].detail["undoes"] == edit_id
