"""Shared fixtures. Integration tests get a real Neo4j 5.26, in this order of preference:

1. `NEO4J_URI` (with `NEO4J_USER`/`NEO4J_PASSWORD`) when set: used as it is;
2. a Docker engine: `neo4j:5.26-community` through testcontainers;
3. the Maven-built launcher (`tools/neo4j`), on free ports with a throwaway data folder.

Under `CI=true` a missing Neo4j fails the run; elsewhere the integration tests are skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

from support.statements import TEST_CATALOGUE  # noqa: E402

from graphwire.core.clients.graph import Graph  # noqa: E402
from graphwire.core.servers.neo4j_server import LocalNeo4j, free_port  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.core.stores.bootstrap import apply_schema  # noqa: E402

IN_CI = os.environ.get("CI", "").lower() == "true"
# the OpenAI-compatible stub server, and a Chroma server (`chroma run`) for the vector-store tests
pytest_plugins = ["support.fixtures", "support.chroma_server"]


def _docker_running() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env().ping()
        return True
    except Exception:
        return False


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"Neo4j is required under CI=true: {reason}")
    pytest.skip(reason)


def _isolated(settings: Settings, stores: Path) -> Settings:
    """What a test run writes beside Neo4j (Chroma folder, ingest state, extraction cache, audit log) goes to its own
    temporary folder, never to the checkout's .graphwire/ (whose vectors may come from another embedder)."""
    return settings.model_copy(
        update={"chroma_path": stores / "chroma", "ingest_state_path": stores / "ingest-state",
                "extraction_cache_path": stores / "cache" / "extractions.sqlite",
                "auth_store_path": stores / "auth" / "principals.sqlite"}
    )  # fmt: skip


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    stores = tmp_path_factory.mktemp("stores")
    if os.environ.get("NEO4J_URI"):
        yield _isolated(Settings(), stores)
        return
    if _docker_running():
        from testcontainers.neo4j import Neo4jContainer  # type: ignore[import-untyped]

        password = "graphwire-test"
        container = Neo4jContainer("neo4j:5.26-community", password=password)
        container.with_env("NEO4J_internal_cypher_use__parameter__size", "false")  # as docker-compose.yml
        with container:
            yield _isolated(Settings(neo4j_uri=container.get_connection_url(), neo4j_password=password), stores)
        return
    if shutil.which("java") is None or shutil.which("mvn") is None:
        _unavailable("no NEO4J_URI, no Docker engine, and no java/mvn to run the local launcher")
    home = Path(tempfile.mkdtemp(prefix="graphwire-neo4j-"))
    server = LocalNeo4j(home, bolt_port=free_port(), http_port=free_port(), heap="768m", pagecache="128m")
    try:
        server.start(timeout_s=240)
        settings = Settings(
            neo4j_uri=server.bolt_uri,
            neo4j_password=server.password_file.read_text().strip(),
            neo4j_home=home,
            neo4j_http_port=server.http_port or 7474,
        )
        yield _isolated(settings, stores)
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def session_graph(neo4j_settings: Settings) -> Iterator[Graph]:
    graph = Graph.from_settings(neo4j_settings, TEST_CATALOGUE)  # product statements and tests/support/cypher/
    apply_schema(graph)
    yield graph
    graph.close()


@pytest.fixture(scope="module")
def chains_graph(session_graph: Graph) -> Iterator[Graph]:
    """The chains corpus (tests/support/chains.py) written once for a module's read-only tests."""
    from support.chains import ingest_chains

    session_graph.write("admin/wipe")
    ingest_chains(session_graph)
    yield session_graph
    session_graph.write("admin/wipe")


@pytest.fixture
def graph(session_graph: Graph) -> Graph:
    """An empty graph for each test (constraints and indexes stay)."""
    session_graph.write("admin/wipe")
    return session_graph
