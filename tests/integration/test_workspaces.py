"""Workspaces against real Neo4j and Chroma: the same corpus in two workspaces gives two equal graphs that do not
touch; what one workspace ingests, retrieves or deletes never reaches the other; a store written before workspaces
moves into `default`; the CLI works in the workspace it is given."""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.auth import make_team
from support.demo import DEMO, ingest_demo, ingest_documents
from support.jobs import wait_for_job
from typer.testing import CliRunner

from graphwire import Graphwire
from graphwire.app.auth import operations as ops
from graphwire.app.main import create_app
from graphwire.cli.main import app
from graphwire.core.auth.models import LOCAL, Role
from graphwire.core.auth.store import SqlitePrincipalStore
from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import AuthMode, Settings
from graphwire.core.stores import workspace_registry
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.core.stores.workspace_registry import WorkspaceDeletingError
from graphwire.core.stores.write_session import WriteSession
from graphwire.core.workspaces import WorkspaceNameError
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.retrieval.registry import MODES, RetrievalContext
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
OTHER = "team-b"
ONLY_IN_OTHER = {
    "title": "Zephyr Quill Robotics opens a research lab in Tromso",
    "source": "Circuit Weekly",
    "published_at": "2026-05-04",
    "url": "https://demo.graphwire.dev/circuit-weekly/zephyr-quill-tromso",
    "body": "Zephyr Quill Robotics opened a research lab in Tromso on Monday. Zephyr Quill Robotics is led by chief "
    "executive Ines Marlow, who said the lab will build underwater inspection drones for Arctic ports.",
}
QUESTION = "Where did Zephyr Quill Robotics open a research lab?"


@pytest.fixture
def settings(neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return neo4j_settings.model_copy(update={"store_lock_dir": tmp_path_factory.mktemp("locks")})


def export(graph: Graph, settings: Settings) -> list[str]:
    return list(GraphExchange(settings, lambda: graph, load_schema()).export_lines())


def chunk_ids(graph: Graph) -> set[str]:
    return {row["id"] for row in graph.read("check/chunk_ids")}


def test_two_workspaces_hold_the_same_corpus_apart_and_deleting_one_leaves_the_other(
    graph: Graph, settings: Settings
) -> None:
    other_settings = settings.for_workspace(OTHER)
    other = graph.in_workspace(OTHER)
    ingest_demo(graph, settings)
    before = export(graph, settings)
    assert export(other, other_settings)[1:] == []  # nothing yet

    ingest_demo(other, other_settings)
    assert export(other, other_settings) == before  # the same corpus gives the same graph, ids and keys included
    assert export(graph, settings) == before  # and the first workspace did not change

    ingest_documents(other, other_settings, [ONLY_IN_OTHER])
    extra = chunk_ids(other) - chunk_ids(graph)
    assert extra and export(graph, settings) == before

    here = RetrievalContext(settings, graph=lambda: graph)
    there = RetrievalContext(other_settings, graph=lambda: other)
    assert extra & {c.chunk_id for c in there.retriever("joint").retrieve(QUESTION, top_k=5).chunks}
    for mode in MODES:
        result = here.retriever(mode).retrieve(QUESTION, top_k=10)
        assert not extra & {c.chunk_id for c in result.chunks}, mode
        assert "Zephyr Quill Robotics" not in {e.name for e in result.entities}, mode

    assert empty_graph(other) > 0
    assert export(other, other_settings)[1:] == [] and export(graph, settings) == before


def test_a_store_written_before_workspaces_moves_into_default(graph: Graph) -> None:
    graph.write(
        "fixture/legacy_nodes",
        document_id="doc-legacy",
        chunk_id="doc-legacy-0",
        title="Harbor Forge buys a shipyard",
        entity_key="organization:harbor forge",
        entity="Harbor Forge",
    )
    assert "doc-legacy-0" not in chunk_ids(graph)  # without a workspace no statement sees it
    apply_schema(graph)
    assert "doc-legacy-0" in chunk_ids(graph)
    assert chunk_ids(graph.in_workspace(OTHER)) == set()
    assert (
        graph.read("documents/get", document_id="doc-legacy", readers=None)[0]["title"]
        == "Harbor Forge buys a shipyard"
    )


def test_a_workspace_name_is_checked_before_anything_runs(graph: Graph, settings: Settings) -> None:
    for bad in ("../etc", "Team", "a b", "x' OR 1=1 //", "", "-x", "x-", "a" * 41):
        with pytest.raises(WorkspaceNameError):
            graph.in_workspace(bad)
        with pytest.raises(ValueError, match="invalid workspace name"):
            Settings(workspace=bad)
    result = CliRunner().invoke(app, ["--workspace", "../etc", "db", "stats"])
    assert result.exit_code == 2 and "invalid workspace name" in result.output


def test_the_cli_ingests_lists_and_deletes_the_workspace_it_is_given(
    graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    env = {**os.environ, "NEO4J_URI": settings.neo4j_uri, "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
           "CHROMA_PATH": str(tmp_path / "chroma"), "INGEST_STATE_PATH": str(tmp_path / "state"),
           "STORE_LOCK_DIR": str(tmp_path / "locks"), "HOME": str(tmp_path), "COLUMNS": "200"}  # fmt: skip
    ingest_demo(graph, settings)
    before = export(graph, settings)
    corpus = tmp_path / "zephyr.jsonl"
    corpus.write_text(json.dumps(ONLY_IN_OTHER) + "\n", encoding="utf-8")

    run = _cli(env, "--workspace", OTHER, "ingest", str(corpus), "--extractor", "offline")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    other = graph.in_workspace(OTHER)
    assert len(chunk_ids(other)) == 1 and export(graph, settings) == before
    other_settings = Settings(chroma_path=tmp_path / "chroma", workspace=OTHER)
    assert ChunkStore.from_settings(other_settings).count() == 1  # its own collection
    assert (tmp_path / f"state-{OTHER}").is_dir()  # and its own ingest state

    listed = _cli(env, "workspace", "list")
    assert listed.returncode == 0, listed.stderr
    cells = [[c.strip() for c in line.strip().strip("│").split("│")] for line in listed.stdout.splitlines()]
    rows = {row[0]: row[1:] for row in cells if row and row[0] in ("default", OTHER)}
    assert rows[OTHER][:2] == ["1", "1"] and rows["default"][0] == "22"  # documents, chunks, entities

    assert _cli(env, "workspace", "delete", OTHER).returncode == 1  # not confirmed: nothing deleted
    assert len(chunk_ids(other)) == 1
    deleted = _cli(env, "workspace", "delete", OTHER, "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert chunk_ids(other) == set() and export(graph, settings) == before
    assert ChunkStore.from_settings(other_settings).count() == 0

    run = _cli(env, "-w", OTHER, "ingest", str(corpus), "--extractor", "offline")
    assert run.returncode == 0 and len(chunk_ids(other)) == 1
    reset = _cli(env, "-w", OTHER, "db", "reset", "--yes")  # the same, as `db reset` in the workspace
    assert reset.returncode == 0, reset.stderr
    assert chunk_ids(other) == set() and export(graph, settings) == before


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphwire.cli.main", *args], env=env, cwd=env["HOME"],
                          capture_output=True, text=True, timeout=240)  # fmt: skip


def test_the_api_serves_the_workspace_a_request_names_and_checks_roles_there(
    graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """X-Graphwire-Workspace picks the workspace of a request; a principal's roles are those it holds there."""
    team = make_team(tmp_path / "auth.sqlite")
    ops.add_principal(team.store, LOCAL, ops.NewPrincipal(name="bea"))
    ops.grant(team.store, LOCAL, ops.GrantRequest(principal="bea", role=Role.READER, workspace=OTHER))
    bea = ops.create_key(team.store, LOCAL, "bea", ops.NewKey()).key
    served = settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state",
                "auth_mode": AuthMode.PRINCIPALS, "auth_store_path": tmp_path / "auth.sqlite"}
    )  # fmt: skip
    ingest_demo(graph, served)
    other = graph.in_workspace(OTHER)
    ingest_documents(other, served.for_workspace(OTHER), [ONLY_IN_OTHER])
    extra = chunk_ids(other)
    in_other = {"X-Graphwire-Workspace": OTHER}
    body = {"question": QUESTION, "mode": "bm25", "top_k": 10}
    with TestClient(create_app(served)) as client:
        admin, rita = team.headers(team.admin_key), team.headers(team.reader_key)
        assert client.get("/v1/documents", headers=admin).json()["total"] == 22
        assert client.get("/v1/documents", headers=admin | in_other).json()["total"] == 1
        found = client.post("/v1/retrieve", json=body, headers=admin | in_other).json()
        assert extra & {c["chunk_id"] for c in found["chunks"]}
        here = client.post("/v1/retrieve", json=body, headers=admin).json()
        assert not extra & {c["chunk_id"] for c in here["chunks"]}

        # rita reads default only, bea team-b only: each is refused in the other's workspace
        assert client.post("/v1/retrieve", json=body, headers=rita).status_code == 200
        refused = client.post("/v1/retrieve", json=body, headers=rita | in_other)
        assert refused.status_code == 403 and repr(OTHER) in refused.json()["error"]["message"]
        bea_there = client.post("/v1/retrieve", json=body, headers=team.headers(bea) | in_other)
        assert bea_there.status_code == 200 and extra & {c["chunk_id"] for c in bea_there.json()["chunks"]}
        assert client.post("/v1/retrieve", json=body, headers=team.headers(bea)).status_code == 403

        bad = client.post("/v1/retrieve", json=body, headers=admin | {"X-Graphwire-Workspace": "../x"})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_workspace"
        unknown = {"X-Graphwire-Workspace": "team-x"}  # valid, never created
        missing = client.post("/v1/retrieve", json=body, headers=admin | unknown)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_workspace"
        assert client.post("/v1/retrieve", json=body, headers=rita | unknown).status_code == 403  # no oracle

        # the MCP endpoint serves the workspace the request names, with the same role checks
        listed = mcp(client, "list_documents", {"limit": 100}, admin | in_other)
        assert [d["title"] for d in listed["structuredContent"]["items"]] == [ONLY_IN_OTHER["title"]]
        assert mcp(client, "list_documents", {"limit": 100}, admin)["structuredContent"]["total"] == 22
        assert mcp(client, "list_documents", {"limit": 100}, team.headers(bea) | in_other)["isError"] is False
        assert mcp(client, "list_documents", {"limit": 100}, team.headers(bea))["isError"] is True
        assert mcp(client, "list_documents", {"limit": 100}, admin | unknown)["isError"] is True
    assert len(graph.read("check/document_titles")) == 22  # nothing of team-b came into default


MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def mcp(client: TestClient, tool: str, arguments: dict[str, object], headers: dict[str, str]) -> dict[str, Any]:
    """One MCP tool call over the API's /mcp: its result."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    answer = client.post("/mcp", json=call, headers=MCP_HEADERS | headers)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def test_two_workspaces_ingest_through_jobs_at_once_and_deleting_one_leaves_the_other_serving(
    graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    served = settings.model_copy(update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state"})
    articles = (DEMO / "articles.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in articles.splitlines() if line.strip()]
    in_other = {"X-Graphwire-Workspace": OTHER}
    body = {"question": QUESTION, "mode": "joint", "top_k": 5}
    with TestClient(create_app(served)) as client:
        assert client.post("/v1/workspaces", json={"name": OTHER}).status_code == 201
        here = client.post("/v1/documents", json={"documents": records})  # each workspace's own job worker
        there = client.post("/v1/documents", json={"documents": [*records[:5], ONLY_IN_OTHER]}, headers=in_other)
        assert here.status_code == there.status_code == 202, (here.text, there.text)
        assert wait_for_job(client, here.json()["job_id"])["state"] == "succeeded"
        assert wait_for_job(client, there.json()["job_id"], headers=in_other)["state"] == "succeeded"
        assert client.get("/v1/documents").json()["total"] == 22
        assert client.get("/v1/documents", headers=in_other).json()["total"] == 6
        before = client.get("/v1/graph/export").text

        answers: list[int] = []
        stop = threading.Event()

        def ask() -> None:  # the first workspace keeps serving while the second is deleted
            while not stop.is_set():
                answers.append(client.post("/v1/retrieve", json=body).status_code)

        asking = threading.Thread(target=ask)
        asking.start()
        env = {**os.environ, "NEO4J_URI": served.neo4j_uri, "NEO4J_PASSWORD": served.resolved_neo4j_password(),
               "CHROMA_PATH": str(served.chroma_path), "INGEST_STATE_PATH": str(served.ingest_state_path),
               "STORE_LOCK_DIR": str(served.store_lock_dir), "HOME": str(tmp_path)}  # fmt: skip
        deleted = _cli(env, "workspace", "delete", OTHER, "--yes")
        stop.set()
        asking.join(timeout=60)
        assert deleted.returncode == 0, deleted.stderr
        assert answers and set(answers) == {200}
        assert client.get("/v1/graph/export").text == before
        assert client.get("/v1/documents", headers=in_other).json()["total"] == 0
    assert chunk_ids(graph.in_workspace(OTHER)) == set()


def test_workspaces_are_created_listed_described_and_deleted_over_http(
    graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """/v1/workspaces: a server admin creates and deletes, a workspace's readers describe it, everyone lists those
    they hold a role in; a delete answers at once and finishes behind it; the other workspaces do not change."""
    team = make_team(tmp_path / "auth.sqlite")
    ops.add_principal(team.store, LOCAL, ops.NewPrincipal(name="bea"))
    ops.grant(team.store, LOCAL, ops.GrantRequest(principal="bea", role=Role.WRITER, workspace="team-c"))
    bea = team.headers(ops.create_key(team.store, LOCAL, "bea", ops.NewKey()).key)
    admin, rita = team.headers(team.admin_key), team.headers(team.reader_key)
    served = settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state",
                "auth_mode": AuthMode.PRINCIPALS, "auth_store_path": tmp_path / "auth.sqlite"}
    )  # fmt: skip
    ingest_demo(graph, served)
    before = export(graph, served)
    in_c = {"X-Graphwire-Workspace": "team-c"}
    with TestClient(create_app(served)) as client:
        assert client.post("/v1/documents", json={"documents": [ONLY_IN_OTHER]}, headers=bea | in_c).status_code == 404
        assert client.post("/v1/workspaces", json={"name": "team-c"}, headers=bea).status_code == 403
        bad = client.post("/v1/workspaces", json={"name": "Team C"}, headers=admin)
        assert bad.status_code == 422
        made = client.post("/v1/workspaces", json={"name": "team-c"}, headers=admin)
        assert made.status_code == 201, made.text
        assert made.json() | {"created_at": None} == {
            "name": "team-c", "state": "ready", "documents": 0, "chunks": 0, "entities": 0, "relationships": 0,
            "created_at": None, "created_by": "root", "deleting_since": None}  # fmt: skip
        assert client.post("/v1/workspaces", json={"name": "team-c"}, headers=admin).status_code == 200

        assert [w["name"] for w in client.get("/v1/workspaces", headers=admin).json()] == ["default", "team-c"]
        assert [w["name"] for w in client.get("/v1/workspaces", headers=rita).json()] == ["default"]
        assert [w["name"] for w in client.get("/v1/workspaces", headers=bea).json()] == ["team-c"]
        assert client.get("/v1/workspaces/team-c", headers=rita).status_code == 403
        assert client.get("/v1/workspaces/team-x", headers=rita).status_code == 403  # no existence oracle
        assert client.get("/v1/workspaces/team-x", headers=admin).status_code == 404
        assert client.get("/v1/workspaces/..%2Fx", headers=admin).status_code in (404, 422)

        posted = client.post("/v1/documents", json={"documents": [ONLY_IN_OTHER]}, headers=bea | in_c)
        assert posted.status_code == 202, posted.text
        assert wait_for_job(client, posted.json()["job_id"], headers=bea | in_c)["state"] == "succeeded"
        described = client.get("/v1/workspaces/team-c", headers=bea).json()
        assert (described["documents"], described["chunks"]) == (1, 1)
        assert described["entities"] > 0 and described["relationships"] > 0
        default = client.get("/v1/workspaces/default", headers=rita).json()
        assert default["documents"] == 22 and default["created_at"] is None
        other_settings = served.for_workspace("team-c")
        assert ChunkStore.from_settings(other_settings).count() == 1 and other_settings.ingest_state_path.is_dir()

        assert client.delete("/v1/workspaces/team-c", headers=bea).status_code == 403
        assert client.delete("/v1/workspaces/default", headers=admin).json()["error"]["code"] == "served_workspace"
        deleting = client.delete("/v1/workspaces/team-c", headers=admin)
        assert deleting.status_code == 202 and deleting.json()["state"] == "deleting"
        assert deleting.json()["documents"] == 1
        assert _gone(client, "team-c", admin), "the delete did not finish"
        assert client.post("/v1/retrieve", json={"question": QUESTION}, headers=bea | in_c).status_code == 404
        assert ChunkStore.from_settings(other_settings).count() == 0
        assert not other_settings.ingest_state_path.exists()
        assert export(graph, served) == before
        assert client.get("/v1/documents", headers=admin).json()["total"] == 22

        events = client.get("/v1/auth/audit", params={"target": "team-c"}, headers=admin).json()
        assert [(e["action"], e["workspace"]) for e in reversed(events)] == [
            ("workspace.create", "team-c"), ("workspace.delete", "team-c")]  # fmt: skip
        again = client.post("/v1/workspaces", json={"name": "team-c"}, headers=admin)
        assert again.status_code == 201 and again.json()["documents"] == 0  # a new, empty one
    assert graph.in_workspace("team-c").read("store/workspace_entry")[0]["registered"]


def _gone(client: TestClient, workspace: str, headers: dict[str, str], timeout_s: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if client.get(f"/v1/workspaces/{workspace}", headers=headers).status_code == 404:
            return True
        time.sleep(0.2)
    return False


def test_a_delete_cut_short_refuses_writers_and_is_finished_when_the_api_starts(
    graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """A delete that marked its workspace and died (a killed process) leaves it refusing every writer; the API
    finishes it as it starts, and `graphwire workspace delete` run again finishes another."""
    served = settings.model_copy(update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state"})
    ingest_demo(graph, served)
    before = export(graph, served)
    for name in ("team-d", "team-e"):
        ingest_documents(graph.in_workspace(name), served.for_workspace(name), [ONLY_IN_OTHER])
        workspace_registry.mark_deleting(graph.in_workspace(name), by="a delete that was killed")
    d_settings = served.for_workspace("team-d")
    assert ChunkStore.from_settings(d_settings).count() == 1

    with pytest.raises(WorkspaceDeletingError, match="being deleted"):
        WriteSession(d_settings, lambda: graph.in_workspace("team-d"), "a writer").open()
    env = {**os.environ, "NEO4J_URI": served.neo4j_uri, "NEO4J_PASSWORD": served.resolved_neo4j_password(),
           "CHROMA_PATH": str(served.chroma_path), "INGEST_STATE_PATH": str(served.ingest_state_path),
           "STORE_LOCK_DIR": str(served.store_lock_dir), "HOME": str(tmp_path), "COLUMNS": "200"}  # fmt: skip
    reset = _cli(env, "-w", "team-e", "db", "reset", "--yes")
    assert reset.returncode == 1 and "is being deleted" in reset.stderr
    listed = _cli(env, "workspace", "list")
    assert "deleting" in next(line for line in listed.stdout.splitlines() if "team-e" in line)
    finished = _cli(env, "workspace", "delete", "team-e", "--yes")
    assert finished.returncode == 0, finished.stderr
    assert workspace_registry.describe(graph.in_workspace("team-e")) is None
    [event] = SqlitePrincipalStore(Path(os.environ["AUTH_STORE_PATH"])).audit(target="team-e")
    assert (event.action, event.workspace, event.actor) == ("workspace.delete", "team-e", f"local:{getpass.getuser()}")

    with TestClient(create_app(served)) as client:
        refused = client.post("/v1/documents", json={"documents": [ONLY_IN_OTHER]}, headers={"X-Graphwire-Workspace":
                              "team-d"})  # fmt: skip
        assert refused.status_code in (404, 409)  # being deleted, or deleted already
        assert _gone(client, "team-d", {}), "the API did not finish the delete"
        assert [w["name"] for w in client.get("/v1/workspaces").json()] == ["default"]
    assert chunk_ids(graph.in_workspace("team-d")) == set()
    assert ChunkStore.from_settings(d_settings).count() == 0
    assert export(graph, served) == before


def test_the_python_api_creates_describes_lists_and_deletes_its_workspace(
    graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    served = settings.model_copy(update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state"})
    ingest_demo(graph, served)
    before = export(graph, served)
    with Graphwire(served, workspace="team-p") as gw:
        assert gw.describe_workspace() is None
        assert gw.create_workspace() is True and gw.create_workspace() is False
        assert gw.describe_workspace().documents == 0  # type: ignore[union-attr]
        gw.ingest([ONLY_IN_OTHER], extractor="offline")
        info = gw.describe_workspace()
        assert info is not None and (info.documents, info.chunks, info.state) == (1, 1, "ready")
        assert {w.name: w.documents for w in gw.workspaces()} == {"default": 22, "team-p": 1}
        assert gw.retrieve(QUESTION, mode="bm25").chunks
        done = gw.delete_workspace()
        assert done.nodes > 0 and done.vectors == 1 and gw.describe_workspace() is None
        assert [w.name for w in gw.workspaces()] == ["default"]
    assert export(graph, served) == before
