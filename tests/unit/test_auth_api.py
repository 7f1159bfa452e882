"""AUTH_MODE=principals without a Neo4j: 401 for missing, malformed, unknown, expired and revoked keys and for bad
tokens (before any body is read, never echoing them, counted by reason and logged without them), 403 for a role too
low (routes, /v1/auth and the MCP tools), keys shown once, JWTs of an issuer served on loopback, the CLI bootstrap."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY
from support.auth import AUDIENCE, ISSUER, Team, jwk, jwks_server, make_team, private_key, token

from graphwire.app.auth import operations as ops
from graphwire.app.main import create_app
from graphwire.core.auth.keys import new_key, parse_key
from graphwire.core.auth.models import LOCAL, Role
from graphwire.core.auth.store import now
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import AuthMode, Settings

MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def settings_for(tmp_path: Path, **values: Any) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",  # nothing listens: these tests never reach a Neo4j
        neo4j_password="unused",
        neo4j_apply_schema_on_start=False,
        chroma_path=tmp_path / "chroma",
        ingest_state_path=tmp_path / "state",
        auth_mode=AuthMode.PRINCIPALS,
        auth_store_path=tmp_path / "auth" / "principals.sqlite",
        **values,
    )


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return make_team(tmp_path / "auth" / "principals.sqlite")


@pytest.fixture
def client(tmp_path: Path, team: Team) -> Iterator[TestClient]:
    with TestClient(create_app(settings_for(tmp_path))) as client:
        yield client


def failures(reason: str) -> float:
    return REGISTRY.get_sample_value("graphwire_auth_failures_total", {"reason": reason}) or 0.0


def test_bad_keys_are_401_before_the_body_counted_and_logged_without_the_key(
    client: TestClient, team: Team, caplog: pytest.LogCaptureFixture
) -> None:
    rita = team.store.principal("rita")
    assert rita is not None
    expired = new_key()
    team.store.add_key("test", rita.id, expired, expires_at=now() - timedelta(minutes=1))
    revoked = ops.create_key(team.store, LOCAL, "rita", ops.NewKey()).key
    ops.revoke_key(team.store, LOCAL, revoked.split("_")[1])
    unknown = f"gw_{'0' * 16}_{'A' * 43}"
    cases = [(None, "missing"), ("gw_not-a-key", "malformed"), ("hunter2", "malformed"), (unknown, "unknown_key"),
             (expired.text, "expired"), (revoked, "revoked")]  # fmt: skip
    for key, reason in cases:
        before = failures(reason)
        headers = {"X-API-Key": key} if key is not None else {}
        with caplog.at_level(logging.WARNING, logger="graphwire.auth"):
            answer = client.post("/v1/documents", content=b"{not json", headers=headers)  # a body never read
        assert answer.status_code == 401, (reason, answer.text)
        assert answer.json()["error"]["code"] == "unauthorized"
        assert key is None or key not in answer.text
        assert failures(reason) == before + 1
        record = [r for r in caplog.records if r.name == "graphwire.auth"][-1]
        assert record.reason == reason  # type: ignore[attr-defined]
        assert key is None or key not in record.getMessage() + str(record.__dict__)
    assert "expired" in client.get("/v1/auth/whoami", headers={"X-API-Key": expired.text}).json()["error"]["message"]
    assert [r for r in caplog.records if r.name == "graphwire.auth"][-1].key_id == expired.key_id  # type: ignore[attr-defined]


def test_whoami_and_roles(client: TestClient, team: Team) -> None:
    me = client.get("/v1/auth/whoami", headers=team.headers(team.reader_key)).json()
    assert (me["name"], me["roles"], me["server_admin"], me["via"]) == ("rita", {"default": "reader"}, False, "key")
    refused = client.post("/v1/documents", json={"documents": []}, headers=team.headers(team.reader_key))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
    assert "writer role" in refused.json()["error"]["message"]
    assert client.post("/v1/graph/import", content=b"{}", headers=team.headers(team.reader_key)).status_code == 403
    assert client.delete("/v1/documents/x", headers=team.headers(team.reader_key)).status_code == 403


def test_admin_routes_are_for_admins_and_a_key_is_shown_once(client: TestClient, team: Team) -> None:
    for key in (team.reader_key, team.writer_key):
        for method, path in (("GET", "/v1/auth/principals"), ("GET", "/v1/auth/keys"), ("GET", "/v1/auth/audit"),
                             ("POST", "/v1/auth/principals/rita/keys"), ("GET", "/v1/auth/grants")):  # fmt: skip
            answer = client.request(method, path, json={}, headers=team.headers(key))
            assert answer.status_code == 403, (method, path, answer.text)
        grant = client.post("/v1/auth/grants", json={"principal": "rita", "role": "admin"}, headers=team.headers(key))
        assert grant.status_code == 403
    assert (
        client.post("/v1/auth/principals", json={"name": "x"}, headers=team.headers(team.writer_key)).status_code == 403
    )
    assert [p.name for p in ops.list_principals(team.store)] == ["root", "wendy", "rita"]  # nothing was added

    admin = team.headers(team.admin_key)
    created = client.post("/v1/auth/principals", json={"name": "ci", "kind": "service"}, headers=admin)
    assert created.status_code == 201 and created.json()["kind"] == "service"
    assert client.post("/v1/auth/principals", json={"name": "ci"}, headers=admin).status_code == 409
    granted = client.post("/v1/auth/grants", json={"principal": "ci", "role": "writer"}, headers=admin)
    assert granted.status_code == 200, granted.text
    new = client.post("/v1/auth/principals/ci/keys", json={"expires_in_days": 30}, headers=admin)
    assert new.status_code == 201
    plain, prefix = new.json()["key"], new.json()["record"]["prefix"]
    assert plain.startswith(prefix + "_")
    assert client.get("/v1/auth/whoami", headers={"X-API-Key": plain}).json()["roles"] == {"default": "writer"}
    listed = client.get("/v1/auth/keys", headers=admin)
    secret = plain[len(prefix) + 1 :]  # the whole secret: base64url may hold "_" itself
    assert listed.status_code == 200 and secret not in listed.text and "hash" not in listed.text
    assert prefix in listed.text
    assert client.post(f"/v1/auth/keys/{prefix}/revoke", headers=admin).json()["revoked_at"] is not None
    assert client.get("/v1/auth/whoami", headers={"X-API-Key": plain}).status_code == 401
    audit = client.get("/v1/auth/audit", params={"action": "key."}, headers=admin).json()
    root = client.get("/v1/auth/whoami", headers=admin).json()["id"]
    assert [(e["action"], e["actor"]) for e in audit[:2]] == [("key.revoke", root), ("key.create", root)]
    assert secret not in str(audit)


def test_mcp_write_tools_refuse_a_reader(client: TestClient, team: Team) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "add_documents", "arguments": {"documents": [{"title": "t", "body": "b"}]}}}  # fmt: skip
    answer = client.post("/mcp", json=call, headers={**MCP_HEADERS, "X-API-Key": team.reader_key})
    assert answer.status_code == 200
    result = answer.json()["result"]
    assert result["isError"] and "writer role" in result["content"][0]["text"]
    assert "forbidden" in result["content"][0]["text"]
    assert client.post("/mcp", json=call, headers=MCP_HEADERS).status_code == 401


@pytest.fixture
def issuer() -> Iterator[tuple[rsa.RSAPrivateKey, str]]:
    key = private_key()
    with jwks_server([jwk(key, "k1")]) as url:
        yield key, url


def test_bearer_tokens_of_the_oidc_issuer(tmp_path: Path, team: Team, issuer: tuple[rsa.RSAPrivateKey, str]) -> None:
    key, url = issuer
    settings = settings_for(tmp_path, oidc_issuer=ISSUER, oidc_audience=AUDIENCE, oidc_jwks_url=url)
    ops.grant(team.store, LOCAL, ops.GrantRequest(group="analysts", role=Role.READER))
    ops.add_principal(team.store, LOCAL, ops.NewPrincipal(name="olga", subject="olga-sub"))
    ops.grant(team.store, LOCAL, ops.GrantRequest(principal="olga", role=Role.WRITER))
    with TestClient(create_app(settings)) as client:

        def whoami(bearer: str) -> Any:
            return client.get("/v1/auth/whoami", headers={"Authorization": f"Bearer {bearer}"})

        analyst = whoami(token(key, "k1", sub="someone", groups=["analysts"]))
        assert analyst.status_code == 200, analyst.text
        assert analyst.json() | {"id": None} == {"id": None, "name": "someone", "via": "token", "server_admin": False,
                                                  "groups": ["analysts"], "roles": {"default": "reader"}}  # fmt: skip
        olga = whoami(token(key, "k1", sub="olga-sub")).json()
        assert (olga["name"], olga["roles"]) == ("olga", {"default": "writer"})
        stranger = token(key, "k1", sub="stranger")
        assert whoami(stranger).json()["roles"] == {}
        tools = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "list_documents", "arguments": {}},
        }
        refused = client.post("/mcp", json=tools, headers={**MCP_HEADERS, "Authorization": f"Bearer {stranger}"})
        assert refused.json()["result"]["isError"] and "reader role" in refused.json()["result"]["content"][0]["text"]

        other = private_key()
        bad = {
            "token_expired": token(key, "k1", sub="someone", exp=int(now().timestamp()) - 60),
            "bad_token": token(key, "k1", sub="someone", aud="another-service"),
        }
        for reason, bearer in bad.items():
            before = failures(reason)
            assert whoami(bearer).status_code == 401
            assert failures(reason) == before + 1
        for bearer in (token(key, "k1", sub="someone", iss="https://elsewhere.test"),  # wrong issuer
                       token(other, "k1", sub="someone"),  # signed by a key the issuer does not hold
                       token(other, "k2", sub="someone"),  # a key id the issuer does not list
                       token(key, "k1", groups=["analysts"]),  # no subject
                       "eyJhbGciOiJSUzI1NiJ9.bm90LWpzb24.c2ln", "a.b.c"):  # fmt: skip
            answer = whoami(bearer)
            assert answer.status_code == 401 and bearer not in answer.text
        assert whoami(team.reader_key).status_code == 200  # keys still work beside tokens


def test_cli_bootstrap_prints_a_key_once_then_refuses_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "AUTH_STORE_PATH": str(tmp_path / "p.sqlite"), "HOME": str(tmp_path)}

    def bootstrap() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphwire.cli.main", "auth", "bootstrap", "ops"], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip

    first = bootstrap()
    assert first.returncode == 0, first.stderr
    [key] = first.stdout.split()
    assert parse_key(key) is not None and key not in (tmp_path / "p.sqlite").read_text(errors="ignore")
    second = bootstrap()
    assert second.returncode == 1 and second.stdout == ""
    assert second.stderr.splitlines() == [
        "error: a server admin exists already; `graphwire auth bootstrap` runs only once"
    ]


def test_a_workspace_admin_manages_its_grants_and_nothing_else(client: TestClient, team: Team) -> None:
    ops.grant(team.store, LOCAL, ops.GrantRequest(principal="wendy", role=Role.ADMIN))
    wendy = team.headers(team.writer_key)  # now an admin of the default workspace, not a server admin
    granted = client.post("/v1/auth/grants", json={"group": "analysts", "role": "reader"}, headers=wendy)
    assert granted.status_code == 200, granted.text
    assert client.get("/v1/auth/grants", headers=wendy).status_code == 200
    assert client.post("/v1/auth/grants/revoke", json={"group": "analysts"}, headers=wendy).status_code == 204
    assert client.post("/v1/auth/grants/revoke", json={"group": "analysts"}, headers=wendy).status_code == 404
    assert client.post("/v1/auth/principals", json={"name": "eve"}, headers=wendy).status_code == 403
    assert client.get("/v1/auth/audit", headers=wendy).status_code == 403
    unknown = client.post("/v1/auth/grants", json={"group": "g", "role": "reader", "workspace": "other"}, headers=wendy)
    assert unknown.status_code == 403  # an admin of `default` only
    wendy_id = client.get("/v1/auth/whoami", headers=wendy).json()["id"]
    actions = [(e.action, e.actor) for e in ops.audit(team.store, ops.AuditQuery(action="role."))][:2]
    assert actions == [("role.revoke", wendy_id), ("role.grant", wendy_id)]
