from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from core.neo4j_server import LocalNeo4j, Neo4jServerError
from core.settings import EmbeddingBackend, Settings

NEO4J_ENV = ("NEO4J_URI", "NEO4J_PASSWORD", "NEO4J_HOME", "NEO4J_HTTP_PORT", "API_KEY", "LLM_BASE_URL", "LLM_MODEL")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NEO4J_ENV:
        monkeypatch.delenv(name, raising=False)


def make(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.mark.parametrize("uri", ["bolt://db.example.com:7687", "neo4j+s://abc.databases.neo4j.io", "neo4j://10.0.0.5"])
def test_remote_uri_without_password_is_an_error_naming_the_variable(uri: str) -> None:
    with pytest.raises(ValidationError, match="NEO4J_PASSWORD"):
        make(neo4j_uri=uri)


def test_remote_uri_with_password_is_accepted() -> None:
    settings = make(neo4j_uri="neo4j+s://abc.databases.neo4j.io", neo4j_password="s3cret-value")
    assert settings.resolved_neo4j_password() == "s3cret-value"


@pytest.mark.parametrize("uri", ["bolt://127.0.0.1:7687", "bolt://localhost:17687", "neo4j://[::1]:7687"])
def test_local_uri_needs_no_password(uri: str) -> None:
    assert make(neo4j_uri=uri).neo4j_password is None


def test_local_password_comes_from_the_launchers_file(tmp_path: Path) -> None:
    settings = make(neo4j_home=tmp_path)
    with pytest.raises(RuntimeError, match="NEO4J_PASSWORD"):
        settings.resolved_neo4j_password()
    (tmp_path / "password").write_text("from-the-file\n")
    assert settings.resolved_neo4j_password() == "from-the-file"
    assert make(neo4j_home=tmp_path, neo4j_password="explicit").resolved_neo4j_password() == "explicit"


def test_environment_variables_are_upper_cased_field_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_HTTP_PORT", "17474")
    monkeypatch.setenv("EMBEDDING_BACKEND", "openai")
    monkeypatch.setenv("LOG_JSON", "true")
    monkeypatch.setenv("API_KEY", "k" * 20)
    settings = make()
    assert settings.neo4j_http_port == 17474
    assert settings.embedding_backend is EmbeddingBackend.OPENAI
    assert settings.log_json is True
    assert settings.api_key is not None and "k" * 20 not in repr(settings)  # secrets stay out of reprs and logs


def test_dotenv_file_is_read_and_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("NEO4J_HEAP=2g\nNEO4J_PAGECACHE=1g\n")
    monkeypatch.setenv("NEO4J_PAGECACHE", "256m")
    settings = Settings(_env_file=env_file)  # type: ignore[call-arg]
    assert (settings.neo4j_heap, settings.neo4j_pagecache) == ("2g", "256m")


def test_llm_is_configured_only_with_base_url_and_model() -> None:
    assert not make().llm_configured
    assert not make(llm_base_url="http://localhost:11434/v1").llm_configured
    assert make(llm_base_url="http://localhost:11434/v1", llm_model="llama3.1:8b").llm_configured


def test_invalid_values_are_rejected() -> None:
    with pytest.raises(ValidationError, match="ppr_damping"):
        make(ppr_damping=1.5)
    with pytest.raises(ValidationError, match="neo4j_http_port"):
        make(neo4j_http_port="not-a-port")


def test_local_server_takes_ports_and_memory_from_settings(tmp_path: Path) -> None:
    server = LocalNeo4j.from_settings(
        make(neo4j_uri="bolt://localhost:17687", neo4j_http_port=17474, neo4j_home=tmp_path, neo4j_heap="768m")
    )
    assert (server.bolt_port, server.http_port, server.heap) == (17687, 17474, "768m")
    assert server.bolt_uri == "bolt://127.0.0.1:17687"
    assert server.browser_url == "http://127.0.0.1:17474/browser/"
    assert LocalNeo4j.from_settings(make(neo4j_home=tmp_path)).bolt_port == 7687


def test_local_server_refuses_remote_or_tls_uris(tmp_path: Path) -> None:
    with pytest.raises(Neo4jServerError, match="not on this machine"):
        LocalNeo4j.from_settings(make(neo4j_uri="bolt://db.example.com", neo4j_password="x" * 8))
    with pytest.raises(Neo4jServerError, match="bolt://"):
        LocalNeo4j.from_settings(make(neo4j_uri="bolt+s://localhost:7687"))
