from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from graphwire.core.servers.neo4j_server import LocalNeo4j, Neo4jServerError
from graphwire.core.settings import RetrievalMode, Settings

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


def test_the_remote_check_names_the_host_and_reads_it_from_the_uri() -> None:
    with pytest.raises(ValidationError, match="'db.example.com'"):
        make(neo4j_uri="bolt://neo4j:secret@db.example.com:7687")  # credentials in the URI are not a password
    with pytest.raises(ValidationError, match="NEO4J_PASSWORD"):
        make(neo4j_uri="bolt://localhost.example.com")  # a host that only starts like a local one
    assert make(neo4j_uri="bolt://LOCALHOST:7687").neo4j_password is None  # host names are case-insensitive


@pytest.mark.parametrize("field", ["neo4j_password", "llm_api_key", "embedding_api_key", "api_key"])
def test_secrets_stay_out_of_reprs(field: str) -> None:
    settings = make(**{field: "k" * 20})
    assert "k" * 20 not in repr(settings) and "k" * 20 not in str(settings.model_dump())


def test_llm_is_configured_only_with_base_url_and_model() -> None:
    assert not make().llm_configured
    assert not make(llm_base_url="http://localhost:11434/v1").llm_configured
    assert not make(llm_model="llama3.1:8b").llm_configured
    assert not make(llm_base_url="", llm_model="llama3.1:8b").llm_configured  # an empty LLM_BASE_URL= line
    assert make(llm_base_url="http://localhost:11434/v1", llm_model="llama3.1:8b").llm_configured


@pytest.mark.parametrize(
    ("field", "rejected", "accepted"),
    [
        ("ppr_damping", [0.0, 1.0, 1.5], [0.01, 0.5, 0.99]),  # a probability strictly between 0 and 1
        ("ppr_relation_cues", [-0.1, 1.01], [0.0, 1.0]),  # shares of the restart mass
        ("ppr_passage_seeds", [-0.1, 1.01], [0.0, 1.0]),
        ("ingest_write_threads", [0, -1], [1, 4]),  # at least one writer
    ],
)
def test_graphwire_bounds_are_enforced(field: str, rejected: list[float], accepted: list[float]) -> None:
    for value in rejected:
        with pytest.raises(ValidationError, match=field):
            make(**{field: value})
    for value in accepted:
        assert getattr(make(**{field: value}), field) == value


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


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ppr_method", "fast"),
        ("ppr_seeds", "everything"),
        ("hybrid_guidance_mode", "nudge"),
        ("log_level", "LOUD"),
        ("llm_extraction_mode", "xml"),
        ("graph_fill_mode", "auto"),  # auto may route back to graph mode: not a fill
        ("router_unanswerable_mode", "everything"),
        ("router_unanswerable_mode", "auto"),  # the router would route to itself
    ],
)
def test_a_choice_setting_outside_its_choices_fails_at_startup(name: str, value: str) -> None:
    with pytest.raises(ValidationError, match=name):
        Settings(**{name: value})


def test_the_unanswerable_mode_is_any_registered_mode_but_auto() -> None:
    for mode in RetrievalMode:
        if mode is not RetrievalMode.AUTO:
            assert make(router_unanswerable_mode=mode.value).router_unanswerable_mode is mode
    assert make().router_unanswerable_mode == "vector"
