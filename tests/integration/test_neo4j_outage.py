"""Neo4j stopped under a stream of requests, then started again: every request answers 503 within the request
deadline (never 504 after the driver's retries), /health says so, and the API recovers without a restart. Neo4j
stopped in the middle of `graphwire ingest`: one line that says to re-run with --resume, no traceback.

The tests run their own throwaway Neo4j (the session's shared one is never stopped)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from support.health import poll_ready

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.servers.neo4j_server import LocalNeo4j, free_port
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema

pytestmark = pytest.mark.integration
QUESTION = "Which company supplies the supplier of Kestrel Motors?"
DEADLINE_S = 5.0  # REQUEST_TIMEOUT_S of the app under test: the driver's default retries alone take 15 s
STREAM = 24  # requests sent while Neo4j is down, 4 at a time


@pytest.fixture(scope="module")
def own_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4j]:
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.fail("this test starts its own Neo4j and needs java and mvn")
    home = tmp_path_factory.mktemp("outage-neo4j")
    server = LocalNeo4j(home, bolt_port=free_port(), http_port=None, heap="512m", pagecache="64m")
    server.start(timeout_s=240)
    try:
        yield server
    finally:
        server.stop()


def _settings(server: LocalNeo4j, tmp: Path) -> Settings:
    return Settings(
        neo4j_uri=server.bolt_uri,
        neo4j_password=server.password_file.read_text().strip(),
        neo4j_home=server.home,
        chroma_path=tmp / "chroma",
        request_timeout_s=DEADLINE_S,
        api_neo4j_breaker_s=1.0,
        graph_fill_mode="none",  # graph mode reads Neo4j only (no vector or PPR fill to build)
    )


def _stream(client: TestClient) -> list[tuple[int, str]]:
    """STREAM graph requests, 4 in flight at a time: (status, error code)."""

    def one(i: int) -> tuple[int, str]:
        if i % 2:
            response = client.get("/v1/entities", params={"q": "Kestrel"})
        else:
            response = client.post("/v1/retrieve", json={"question": QUESTION, "mode": "graph"})
        return response.status_code, response.json().get("error", {}).get("code", "")

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, range(STREAM)))


def _first_answer(client: TestClient) -> Response:
    """The graph answer; the first requests also build the retriever and the server's query plans (slow on a busy
    machine), so a few may pass the deadline."""
    response = client.post("/v1/retrieve", json={"question": QUESTION, "mode": "graph"})
    for _ in range(5):
        if response.status_code == 200:
            break
        response = client.post("/v1/retrieve", json={"question": QUESTION, "mode": "graph"})
    assert response.status_code == 200, response.text
    return response


def _wait_healthy(client: TestClient, timeout_s: float = 120.0) -> int:
    deadline = time.monotonic() + timeout_s
    status = 0
    while time.monotonic() < deadline:
        status = client.get("/health").status_code
        if status == 200:
            return status
        time.sleep(0.5)
    return status


def test_neo4j_down_is_503_at_once_and_the_api_recovers_when_it_is_back(own_neo4j: LocalNeo4j, tmp_path: Path) -> None:
    from support.chains import ingest_chains

    settings = _settings(own_neo4j, tmp_path)
    graph = Graph.from_settings(settings)
    apply_schema(graph)
    ingest_chains(graph)
    graph.close()
    with TestClient(create_app(settings)) as client:
        before = _first_answer(client)
        assert client.get("/health").status_code == 200

        own_neo4j.stop()
        outcomes = _stream(client)
        assert outcomes == [(503, "neo4j_unavailable")] * STREAM  # not one 504 (deadline) or 500
        health = client.get("/health")
        assert health.status_code == 503
        assert health.json()["components"]["neo4j"]["status"] == "error"

        own_neo4j.start(timeout_s=240)
        assert _wait_healthy(client) == 200  # the same app, no restart
        after = _first_answer(client)  # a fresh Neo4j plans its queries anew: the first may pass the deadline
        assert after.json()["facts"] == before.json()["facts"]


def _committed(graph: Graph) -> int:
    try:
        return int(graph.read("ingest/count_nodes")[0]["documents"])
    except Exception:  # the server may be going down
        return 0


def test_neo4j_dying_mid_ingest_prints_one_line_that_says_to_resume(own_neo4j: LocalNeo4j, tmp_path: Path) -> None:
    settings = _settings(own_neo4j, tmp_path)
    if not own_neo4j.status().running:
        own_neo4j.start(timeout_s=240)
    graph = Graph.from_settings(settings)
    graph.write("admin/wipe")
    env = {**os.environ, "NEO4J_URI": settings.neo4j_uri, "NEO4J_HOME": str(own_neo4j.home),
           "NEO4J_PASSWORD": own_neo4j.password_file.read_text().strip(), "NEO4J_RETRY_S": "2",
           "CHROMA_PATH": str(tmp_path / "chroma"), "INGEST_STATE_PATH": str(tmp_path / "state"),
           "EXTRACTION_CACHE_PATH": str(tmp_path / "cache.sqlite"),
           "STORE_LOCK_DIR": str(tmp_path / "locks")}  # fmt: skip
    corpus = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"
    command = [str(Path(sys.executable).parent / "graphwire"), "ingest", str(corpus), "--batch-docs", "1",
               "--no-vectors", "--n-process", "1"]  # fmt: skip
    ingest = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while ingest.poll() is None and _committed(graph) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)  # until the run has written a couple of documents
    graph.close()
    own_neo4j.stop()
    _, stderr = ingest.communicate(timeout=240)
    assert ingest.returncode == 1, stderr[-2000:]
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("error: Neo4j is not reachable") and "--resume" in last, stderr[-3000:]


def test_readiness_follows_neo4j_down_and_back_while_liveness_stays_up(own_neo4j: LocalNeo4j, tmp_path: Path) -> None:
    if not own_neo4j.status().running:
        own_neo4j.start(timeout_s=240)
    settings = _settings(own_neo4j, tmp_path)
    with TestClient(create_app(settings)) as client:
        ready = poll_ready(client, 200, every_s=0.5)  # the first probe builds the name index
        assert ready.status_code == 200, ready.text
        checks = ready.json()["checks"]
        assert set(checks) == {"neo4j", "chroma", "schema", "caches"}
        assert checks["neo4j"]["details"]["breaker"] == "closed"

        own_neo4j.stop()
        down = client.get("/health/ready")  # the first probe after the stop: each check waits HEALTH_PROBE_TIMEOUT_S
        assert down.status_code == 503 and down.json()["status"] == "unready", down.text
        assert down.json()["checks"]["neo4j"]["status"] == "error"
        assert down.headers["Retry-After"]
        again = client.get("/health/ready")  # the breaker is open now: said in the reason
        assert again.status_code == 503 and "breaker open" in again.json()["checks"]["neo4j"]["reason"], again.text
        assert client.get("/health/live").json() == {"status": "ok"}

        own_neo4j.start(timeout_s=240)
        back = poll_ready(client, 200, every_s=0.5)  # the same app, no restart
        assert back.status_code == 200, back.text
        assert back.json()["checks"]["neo4j"]["details"]["breaker"] == "closed"
        assert client.get("/health/live").status_code == 200
