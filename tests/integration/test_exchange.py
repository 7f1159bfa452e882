"""Export and import of the graph (ingest/exchange/) against real Neo4j: the demo graph's export imported into an
empty store gives the same graph, a neighbourhood export holds exactly the k-hop neighbourhood, a bad file is refused
line by line with nothing written, a killed import is finished by running it again, and the CSV layout is the one
neo4j-admin reads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.demo import ingest_demo

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.exchange.models import ExchangeError
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
INTERNAL = {"StoreVersion", "WriterLease", "Edit"}


def store(graph: Graph) -> list[str]:
    """Every node and relationship with its properties (lists in stored order), sorted; read with the tests' own
    statements, not the exporter's."""
    nodes = sorted(
        repr((sorted(r["labels"]), sorted(r["props"].items())))
        for r in graph.read("check/export_nodes")
        if not INTERNAL & set(r["labels"])
    )
    rels = sorted(
        repr((r["type"], r["source"], r["target"], sorted(r["props"].items())))
        for r in graph.read("check/export_relationships")
    )
    return [*nodes, *rels]


@pytest.fixture
def settings(neo4j_settings: Settings, tmp_path: Path) -> Settings:
    return neo4j_settings.model_copy(update={"store_lock_dir": tmp_path / "locks"})


def exchange(graph: Graph, settings: Settings) -> GraphExchange:
    return GraphExchange(settings, lambda: graph, load_schema())


@pytest.fixture(scope="module")
def demo(session_graph: Graph, neo4j_settings: Settings) -> tuple[list[str], list[str]]:
    """The demo graph as `graphwire demo` ingests it: its export lines and the store as the tests read it."""
    session_graph.write("admin/wipe")
    ingest_demo(session_graph, neo4j_settings)
    lines = list(exchange(session_graph, neo4j_settings).export_lines())
    return lines, store(session_graph)


@pytest.fixture
def imported(graph: Graph, settings: Settings, demo: tuple[list[str], list[str]]) -> Graph:
    """An empty store, then the demo export imported into it."""
    exchange(graph, settings).import_lines(demo[0])
    return graph


def test_an_import_of_the_demo_export_into_an_empty_store_gives_the_same_graph(
    graph: Graph, settings: Settings, demo: tuple[list[str], list[str]]
) -> None:
    lines, before = demo
    header = json.loads(lines[0])
    assert header["counts"]["nodes"]["Document"] == 22 and header["counts"]["relationships"]["MENTIONS"] > 100
    kinds = [json.loads(line)["kind"] for line in lines[1:]]
    assert kinds == sorted(kinds, key=lambda k: k != "node") and len(kinds) == len(store(graph) or before)
    assert store(graph) == []

    report = exchange(graph, settings).import_lines(lines)
    assert sum(report.nodes.values()) + sum(report.relationships.values()) == len(lines) - 1
    assert list(exchange(graph, settings).export_lines()) == lines  # byte for byte
    assert store(graph) == before  # and the same graph as read by the tests' own statements

    exchange(graph, settings).import_lines(lines)  # into a store that has it all: merged, nothing doubled
    assert store(graph) == before


def _bfs(lines: list[str], key: str, hops: int) -> tuple[set[str], set[tuple[str, str, str]]]:
    """The k-hop neighbourhood of `key` worked out from the whole export's lines."""
    layers = {"Document", "Chunk", "Date"}
    rows = [json.loads(line) for line in lines[1:]]
    facts = [r for r in rows if r["kind"] == "relationship" and not {r["start"]["label"], r["end"]["label"]} & layers]
    seen = {key}
    for _ in range(hops):
        step = {r["end"]["key"] for r in facts if r["start"]["key"] in seen}
        seen |= step | {r["start"]["key"] for r in facts if r["end"]["key"] in seen}
    inside = {(r["start"]["key"], r["type"], r["end"]["key"]) for r in facts if {r["start"]["key"], r["end"]["key"]} <= seen}
    return seen, inside


def test_a_neighbourhood_export_holds_exactly_the_k_hop_neighbourhood(
    imported: Graph, settings: Settings, demo: tuple[list[str], list[str]]
) -> None:
    key = "Person:ada park"
    for hops in (1, 2):
        seen, inside = _bfs(demo[0], key, hops)
        lines = list(exchange(imported, settings).export_lines(entity=key, hops=hops))
        rows = [json.loads(line) for line in lines[1:]]
        assert {r["key"] for r in rows if r["kind"] == "node"} == seen
        assert {(r["start"]["key"], r["type"], r["end"]["key"]) for r in rows if r["kind"] == "relationship"} == inside
        assert json.loads(lines[0])["scope"] == {"entity": key, "hops": hops}
    assert 1 < len(_bfs(demo[0], key, 1)[0]) < len(_bfs(demo[0], key, 2)[0])
    with pytest.raises(ExchangeError, match="no entity"):
        list(exchange(imported, settings).export_lines(entity="Person:nobody"))
