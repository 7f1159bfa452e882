"""A dedicated local Neo4j (temp home, free ports) driven through the CLI, and the API living through its restart."""

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient
from neo4j import GraphDatabase
from support.statements import TEST_CATALOGUE
from typer.testing import CliRunner

from graphwire.app.deps import GraphDep
from graphwire.app.main import create_app
from graphwire.cli.main import app as cli
from graphwire.core.clients.graph import READ
from graphwire.core.servers.neo4j_server import LocalNeo4j, Neo4jServerError, free_port
from graphwire.core.settings import Settings, get_settings

pytestmark = pytest.mark.integration
runner = CliRunner()


@pytest.fixture(scope="module")
def dedicated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Environment for one throwaway server; whatever the tests leave running is stopped at the end."""
    home = tmp_path_factory.mktemp("dedicated") / "neo4j"
    env = {
        "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}",
        "NEO4J_HTTP_PORT": str(free_port()),
        "NEO4J_HOME": str(home),
        "NEO4J_HEAP": "512m",
        "NEO4J_PAGECACHE": "64m",
        "CHROMA_PATH": str(home.parent / "chroma"),
    }
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        mp.delenv("NEO4J_PASSWORD", raising=False)
        get_settings.cache_clear()
        try:
            yield get_settings()
        finally:
            LocalNeo4j.from_settings(get_settings()).stop()
            get_settings.cache_clear()


def neo4j(*args: str) -> tuple[int, str]:
    result = runner.invoke(cli, ["neo4j", *args])
    return result.exit_code, result.output


def test_start_is_idempotent_and_serves_bolt_and_browser(dedicated: Settings) -> None:
    code, out = neo4j("start")
    assert code == 0, out
    code, again = neo4j("start")
    assert code == 0 and "already running" in again
    code, status = neo4j("status")
    assert code == 0 and "running" in status and "MB" in status

    password = (dedicated.neo4j_home / "password").read_text().strip()
    with GraphDatabase.driver(dedicated.neo4j_uri, auth=("neo4j", password)) as driver:
        records, _, _ = driver.execute_query(TEST_CATALOGUE.query("check/ping"))
        assert records[0]["one"] == 1
    base = f"http://127.0.0.1:{dedicated.neo4j_http_port}"
    assert httpx.get(f"{base}/browser/", timeout=10).status_code == 200
    discovery = httpx.get(base, headers={"Accept": "application/json"}, timeout=10).json()
    assert discovery["bolt_direct"] == dedicated.neo4j_uri  # what Neo4j Browser connects to
    assert discovery["neo4j_version"].startswith("5.26")


def test_db_init_applies_the_schema_and_can_run_again(dedicated: Settings) -> None:
    assert neo4j("start")[0] == 0
    for _ in range(2):
        result = runner.invoke(cli, ["db", "init"])
        assert result.exit_code == 0, result.output
        assert "schema/01_entity_key" in result.output and "schema/05_entity_names_fulltext" in result.output


def test_a_port_held_by_the_running_server_is_refused(dedicated: Settings, tmp_path: Path) -> None:
    assert neo4j("start")[0] == 0
    running = LocalNeo4j.from_settings(dedicated)
    intruder = LocalNeo4j(tmp_path / "other", bolt_port=running.bolt_port, http_port=free_port())
    with pytest.raises(Neo4jServerError, match=f"port {running.bolt_port} .* taken"):
        intruder.start(timeout_s=30)
    assert not (tmp_path / "other" / "neo4j.pid").exists()


def test_the_launcher_s_neo4j_plans_a_statement_whatever_the_size_of_its_list_parameters(dedicated: Settings) -> None:
    """With list sizes as planner hints (Neo4j's default), a statement is planned again for each size class of its
    list parameters, 0.5-1.8 s on a small graph: the launcher turns the hints off, so the estimate (and the cached
    plan) is the same for one key and for fifty."""
    assert neo4j("start")[0] == 0
    password = (dedicated.neo4j_home / "password").read_text().strip()
    with GraphDatabase.driver(dedicated.neo4j_uri, auth=("neo4j", password)) as driver:
        driver.execute_query(TEST_CATALOGUE.query("check/seed_plain_entities"), n=200, workspace="plan-sizes")
        estimates = []
        for size in (1, 50):
            keys = [f"k{i}" for i in range(1, size + 1)]
            _, summary, _ = driver.execute_query("EXPLAIN " + TEST_CATALOGUE.query("check/entities_by_keys"), keys=keys)
            assert summary.plan is not None
            estimates.append(summary.plan["args"]["EstimatedRows"])
        assert estimates[0] == estimates[1]


def _health(client: TestClient) -> tuple[int, dict[str, object]]:
    response = client.get("/health")
    return response.status_code, response.json()["components"]["neo4j"]


def test_health_follows_neo4j_down_and_up_without_an_api_restart(dedicated: Settings) -> None:
    assert neo4j("start")[0] == 0
    probe = APIRouter()

    @probe.get("/probe")
    def constraints(graph: GraphDep) -> dict[str, list[str]]:
        with graph.session(READ) as session:
            return {"constraints": [r["name"] for r in session.run(TEST_CATALOGUE.query("check/constraints")).data()]}

    with TestClient(create_app(dedicated, extra_v1_routers=[probe])) as client:
        status, neo4j_health = _health(client)
        assert status == 200 and str(neo4j_health["details"]).count("Neo4j/5.26") == 1
        applied = set(client.get("/v1/probe").json()["constraints"])  # the app applied the schema when it connected
        assert {"entity_workspace_key", "document_workspace_id", "chunk_workspace_id", "date_workspace_key"} <= applied

        assert neo4j("stop")[0] == 0
        status, neo4j_health = _health(client)
        assert status == 503 and neo4j_health["status"] == "error"
        assert "ServiceUnavailable" in str(neo4j_health["reason"])
        assert client.get("/v1/probe").json()["error"]["code"] == "neo4j_unavailable"

        assert neo4j("start")[0] == 0
        deadline = time.monotonic() + 30
        while (status := _health(client)[0]) != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert status == 200
        assert client.get("/v1/probe").status_code == 200


def test_stop_is_idempotent(dedicated: Settings) -> None:
    neo4j("start")
    code, out = neo4j("stop")
    assert code == 0 and "stopped" in out
    code, out = neo4j("stop")
    assert code == 0 and "not running" in out
    assert neo4j("status")[0] == 3
