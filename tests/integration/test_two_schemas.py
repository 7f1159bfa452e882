"""Two `Graphwire` objects with different schemas in one process (issue 22, explicit configuration): each extracts,
reads questions and answers as its own schema says, whatever the other one or the environment's SCHEMA_PATH says."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwire import Graphwire
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import GraphFillMode, Settings
from graphwire.schema.model import default_schema_path

pytestmark = pytest.mark.integration
ENCYCLOPEDIA = Path(__file__).resolve().parents[2] / "schema" / "encyclopedia.yaml"
BODY = (
    "Orla Merrin (born 12 March 1948) is an Irish film director and screenwriter. Orla Merrin was born in "
    "Ballycastle. Ballycastle is a town in County Antrim."
)
BORN = "Where was Orla Merrin born?"
REUTERS = "Did Reuters report that Orla Merrin was born in Ballycastle?"


def _settings(neo4j_settings: Settings, folder: Path, schema_path: Path) -> Settings:
    """The session's Neo4j; stores of this object's own; no LLM; the graph mode unfilled (no vector store)."""
    return neo4j_settings.model_copy(
        update={"schema_path": schema_path, "chroma_path": folder / "chroma", "ingest_state_path": folder / "state",
                "extraction_cache_path": folder / "cache.sqlite", "store_lock_dir": folder / "locks",
                "llm_base_url": None, "llm_model": None, "graph_fill_mode": GraphFillMode.NONE}
    )  # fmt: skip


def _types(graph: Graph) -> set[str]:
    return {str(r["type"]) for r in graph.read("ingest/export_facts")}


def test_two_graphwire_objects_follow_their_own_schemas(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    news = Graphwire(_settings(neo4j_settings, tmp_path / "news", default_schema_path()))
    encyclopedia = Graphwire(_settings(neo4j_settings, tmp_path / "encyclopedia", ENCYCLOPEDIA))
    try:
        # extraction: the encyclopedia's surface patterns find the birthplace; the news schema has no such type
        encyclopedia.ingest([{"title": "Orla Merrin", "body": BODY}], extractor="offline", vectors=False)
        assert "BORN_IN" in _types(graph)
        # question analysis and answers over the same graph: the encyclopedia's cue words ask for BORN_IN
        assert encyclopedia.ask(BORN, mode="graph", answerer="extractive").text == "Ballycastle"
        assert news.ask(BORN, mode="graph", answerer="extractive").text != "Ballycastle"
        # the news schema's outlets: a question naming one the corpus lacks; the encyclopedia knows no outlets
        assert news.retrieve(REUTERS, mode="graph").analysis.unknown_publications == ["Reuters"]  # type: ignore[union-attr]
        assert encyclopedia.retrieve(REUTERS, mode="graph").analysis.unknown_publications == []  # type: ignore[union-attr]

        graph.write("admin/wipe")
        news.ingest([{"title": "Orla Merrin, director", "body": BODY}], extractor="offline", vectors=False)
        assert "BORN_IN" not in _types(graph)
    finally:
        news.close()
        encyclopedia.close()
