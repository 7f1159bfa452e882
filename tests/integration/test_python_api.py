"""The public Python API (`from graphwire import Graphwire`): the package docstring's example runs as written,
against the session's real Neo4j and a Chroma folder of the test's own, configured through the environment."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from pathlib import Path

import pytest

import graphwire
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings, get_settings

pytestmark = pytest.mark.integration


@pytest.fixture
def environment(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """What a user's `.env` would hold: the session's Neo4j, stores in this test's folder."""
    assert neo4j_settings.neo4j_password is not None
    values = {
        "NEO4J_URI": neo4j_settings.neo4j_uri,
        "NEO4J_PASSWORD": neo4j_settings.neo4j_password.get_secret_value(),
        "CHROMA_PATH": str(tmp_path / "chroma"),
        "INGEST_STATE_PATH": str(tmp_path / "state"),
        "EXTRACTION_CACHE_PATH": str(tmp_path / "cache.sqlite"),
        "STORE_LOCK_DIR": str(tmp_path / "locks"),
        "LLM_BASE_URL": "",
        "LLM_MODEL": "",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.usefixtures("environment")
def test_the_package_docstring_example_runs() -> None:
    result = doctest.testmod(graphwire, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted >= 4 and result.failed == 0


@pytest.mark.usefixtures("environment")
def test_records_in_memory_are_ingested_and_bad_ones_reported() -> None:
    records = [
        {"title": "Harbor Ledger names Mira Osei editor", "source": "Harbor Ledger", "published_at": "2026-05-04",
         "body": "Harbor Ledger named Mira Osei its editor on Monday. Osei joins from Circuit Weekly."},
        {"title": "", "body": "no title"},
    ]  # fmt: skip
    with graphwire.Graphwire() as gw:
        report = gw.ingest(records, extractor="offline")
        assert report.documents_written == 1
        assert [e.location for e in report.load_errors] == ["record 1"]
        result = gw.retrieve("Who did Harbor Ledger name editor?", mode="bm25", top_k=3)
        assert result.chunks and result.chunks[0].title == "Harbor Ledger names Mira Osei editor"
        assert "graph" in gw.modes() and "vector" in gw.modes()


@pytest.mark.usefixtures("environment")
def test_a_reader_gets_only_what_its_groups_may_read() -> None:
    records = [
        {"title": "Harbor Ledger names Mira Osei editor", "source": "Harbor Ledger", "published_at": "2026-05-04",
         "body": "Harbor Ledger named Mira Osei its editor on Monday.", "access": ["newsroom"]},
        {"title": "Mira Osei profile", "source": "Circuit Weekly", "published_at": "2026-05-05",
         "body": "Mira Osei, the new editor, grew up in Accra."},
    ]  # fmt: skip
    with graphwire.Graphwire() as gw:
        assert gw.ingest(records, extractor="offline").documents_written == 2
        question = "Who did Harbor Ledger name editor?"
        titles = {c.title for c in gw.retrieve(question, mode="bm25", top_k=5).chunks}
        assert titles == {"Harbor Ledger names Mira Osei editor", "Mira Osei profile"}
        outsider = gw.retrieve(question, mode="bm25", top_k=5, reader=graphwire.Reader.of(["sales"]))
        assert [c.title for c in outsider.chunks] == ["Mira Osei profile"]
        insider = gw.retrieve(question, mode="bm25", top_k=5, reader=graphwire.Reader.of(["newsroom"]))
        assert {c.title for c in insider.chunks} == titles
        answer = gw.ask(question, mode="bm25", answerer="extractive", reader=graphwire.Reader.of(["sales"]))
        assert {c.title for c in answer.citations} <= {"Mira Osei profile"}
