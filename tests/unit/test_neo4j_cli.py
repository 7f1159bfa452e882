"""`graphwire neo4j ...` paths that need no running Neo4j: stopped status, idempotent stop, clear start errors."""

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphwire.cli.main import app
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import get_settings

runner = CliRunner()


@pytest.fixture
def local_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, int]]:
    bolt, http = free_port(), free_port()
    monkeypatch.setenv("NEO4J_URI", f"bolt://127.0.0.1:{bolt}")
    monkeypatch.setenv("NEO4J_HTTP_PORT", str(http))
    monkeypatch.setenv("NEO4J_HOME", str(tmp_path / "neo4j"))
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    get_settings.cache_clear()
    yield bolt, http
    get_settings.cache_clear()


def test_status_of_a_stopped_server_exits_3(local_env: tuple[int, int]) -> None:
    result = runner.invoke(app, ["neo4j", "status"])
    assert result.exit_code == 3
    assert "stopped" in result.output and f"127.0.0.1:{local_env[0]}" in result.output


def test_stop_without_a_server_is_a_no_op(local_env: tuple[int, int]) -> None:
    for _ in range(2):
        result = runner.invoke(app, ["neo4j", "stop"])
        assert result.exit_code == 0 and "not running" in result.output


def test_start_refuses_a_taken_port(local_env: tuple[int, int]) -> None:
    bolt, _ = local_env
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", bolt))
        squatter.listen()
        result = runner.invoke(app, ["neo4j", "start"])
    assert result.exit_code == 1
    assert f"port {bolt}" in result.output and "taken" in result.output and "NEO4J_URI" in result.output


def test_start_says_when_java_is_missing(local_env: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    result = runner.invoke(app, ["neo4j", "start"])
    assert result.exit_code == 1
    assert "`java` not found" in result.output


def test_start_refuses_a_remote_uri(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example.com:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "some-password")
    get_settings.cache_clear()
    try:
        result = runner.invoke(app, ["neo4j", "start"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1 and "not on this machine" in result.output
