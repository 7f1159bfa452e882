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
from pathlib import Path
from typing import Any

import pytest
from support.demo import ingest_demo
from support.store_state import store_state as store

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.exchange.models import ExchangeError
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


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
    inside = {
        (r["start"]["key"], r["type"], r["end"]["key"]) for r in facts if {r["start"]["key"], r["end"]["key"]} <= seen
    }
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


def _line(**fields: Any) -> str:
    return json.dumps(fields)


def test_a_bad_file_is_refused_line_by_line_and_nothing_is_written(
    imported: Graph, settings: Settings, demo: tuple[list[str], list[str]]
) -> None:
    before = store(imported)
    header = json.dumps({**json.loads(demo[0][0]), "counts": None})
    person = {"label": "Person", "key": "Person:ada park"}
    good = _line(kind="node", label="Person", key="Person:new one", properties={"name": "New One"})
    bad = [
        header,
        good,  # line 2: fine, but the file is refused as a whole
        _line(kind="node", label="Spaceship", key="Spaceship:x", properties={}),
        '{"kind": "node", "label": "Person", ',
        _line(kind="relationship", type="WORKS_FOR", start={"label": "Date", "key": "2026-03-02"},
              end={"label": "Organization", "key": "Organization:lumen labs"}, properties={}),
        _line(kind="relationship", type="CEO_OF", start=person,
              end={"label": "Organization", "key": "Organization:nowhere"},
              properties={"chunk_ids": ["a"], "evidence": ["x"]}),
        _line(kind="relationship", type="FOUNDED", start=person,
              end={"label": "Organization", "key": "Organization:lumen labs"},
              properties={"chunk_ids": ["a", "b"], "evidence": ["x"]}),
        _line(kind="node", label="Person", key="Location:berlin", properties={}),
    ]  # fmt: skip
    with pytest.raises(ExchangeError) as refused:
        exchange(imported, settings).import_lines(bad)
    errors = [str(e) for e in refused.value.errors]
    assert errors[0].startswith("line 3: unknown label 'Spaceship'")
    assert errors[1].startswith("line 4: not JSON")
    assert errors[2] == ("line 5: relationship WORKS_FOR from Date '2026-03-02' to Organization "
                         "'Organization:lumen labs' is not allowed by the schema")  # fmt: skip
    assert errors[3] == ("line 6: the end node Organization 'Organization:nowhere' is neither in the file nor in "
                         "the store")  # fmt: skip
    assert errors[4].startswith("line 7: evidence has 1 entries and chunk_ids 2")
    assert errors[5] == "line 8: entity 'Location:berlin' is a Location in the store, the file says Person"
    assert len(errors) == 6 and "nothing was written" in str(refused.value)

    version = [json.dumps({**json.loads(header), "version": 2}), good]
    with pytest.raises(ExchangeError) as wrong:
        exchange(imported, settings).import_lines(version)
    assert [str(e) for e in wrong.value.errors] == [
        "line 1: format version 2 is not supported (this graphwire reads version 1)"
    ]
    truncated = demo[0][:-1]  # the header counts one relationship line more than the file holds
    with pytest.raises(ExchangeError, match="line 1: the header counts"):
        exchange(imported, settings).import_lines(truncated)
    assert store(imported) == before


def test_an_import_merges_into_a_store_and_joins_provenance(imported: Graph, settings: Settings) -> None:
    fact = next(
        json.loads(line)
        for line in exchange(imported, settings).export_lines(entity="Person:ada park")
        if '"kind":"relationship"' in line and '"evidence":["' in line
    )
    old_ids, old_evidence = fact["properties"]["chunk_ids"], fact["properties"]["evidence"]
    header = json.dumps({"kind": "header", "format": "graphwire-graph", "version": 1,
                         "schema": {"name": "news", "version": "2"}})  # fmt: skip
    fact["properties"].update(chunk_ids=[old_ids[0], "curated-1"], evidence=[old_evidence[0], "A curated sentence."])
    node = {"kind": "node", "label": "Person", "key": "Person:ada park",
            "properties": {"name": "Ada Park", "aliases": ["A. Park"]}}  # fmt: skip
    exchange(imported, settings).import_lines([header, json.dumps(node), json.dumps(fact)])

    [merged] = [json.loads(line) for line in exchange(imported, settings).export_lines(entity="Person:ada park")
                if json.dumps(fact["start"], sort_keys=True, separators=(",", ":")) in line and
                f'"type":"{fact["type"]}"' in line and fact["end"]["key"] in line]  # fmt: skip
    assert merged["properties"]["chunk_ids"] == [*old_ids, "curated-1"]
    assert merged["properties"]["evidence"] == [*old_evidence, "A curated sentence."]
    [ada] = imported.read("curation/entities", keys=["Person:ada park"])
    assert ada["props"]["aliases"][-1] == "A. Park" and ada["props"]["name"] == "Ada Park"


def test_a_killed_import_is_finished_by_running_it_again(
    graph: Graph, settings: Settings, demo: tuple[list[str], list[str]], tmp_path: Path
) -> None:
    path = tmp_path / "graph.jsonl"
    path.write_text("\n".join(demo[0]) + "\n", encoding="utf-8")
    env = {**os.environ, "NEO4J_URI": settings.neo4j_uri, "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
           "STORE_LOCK_DIR": str(settings.store_lock_dir), "PYTHONPATH": str(REPO)}  # fmt: skip
    run = subprocess.run([sys.executable, "-m", "support.exchange_crash", str(path), "5"], env=env,
                         cwd=REPO / "tests", capture_output=True, text=True, timeout=240)  # fmt: skip
    assert run.returncode == -signal.SIGKILL, run.stderr[-3000:]
    partial = store(graph)
    assert 0 < len(partial) < len(demo[1])  # some batches written, not all

    exchange(graph, settings).import_file(path, wait_s=30.0)  # the dead writer's lease is taken over
    assert store(graph) == demo[1]
    assert list(exchange(graph, settings).export_lines()) == demo[0]


def _csv_rows(path: Path) -> list[list[str]]:
    import csv

    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_the_csv_export_has_the_layout_neo4j_admin_reads(
    imported: Graph, settings: Settings, demo: tuple[list[str], list[str]], tmp_path: Path
) -> None:
    command = exchange(imported, settings).export_csv(tmp_path / "csv")
    counts = json.loads(demo[0][0])["counts"]
    assert command[:5] == ["neo4j-admin", "database", "import", "full", settings.neo4j_database]
    assert (tmp_path / "csv" / "import.sh").read_text().splitlines()[-1] == " ".join(command)
    people = _csv_rows(tmp_path / "csv" / "nodes" / "Person.csv")
    assert people[0][:2] == ["key:ID(Entity)", ":LABEL"] and "aliases:string[]" in people[0]
    assert len(people) - 1 == counts["nodes"]["Person"] and {r[1] for r in people[1:]} == {"Entity\x1fPerson"}
    chunks = _csv_rows(tmp_path / "csv" / "nodes" / "Chunk.csv")
    assert chunks[0][:2] == ["id:ID(Chunk)", ":LABEL"] and "index:long" in chunks[0] and "text:string" in chunks[0]
    mentions = _csv_rows(tmp_path / "csv" / "relationships" / "MENTIONS-Chunk-Entity.csv")
    assert mentions[0][:3] == [":START_ID(Chunk)", ":END_ID(Entity)", ":TYPE"] and "count:long" in mentions[0]
    assert len(mentions) - 1 == counts["relationships"]["MENTIONS"]
    files = sorted(p.relative_to(tmp_path / "csv").as_posix() for p in (tmp_path / "csv").rglob("*.csv"))
    assert [a.split("=", 1)[1] for a in command if a.startswith(("--nodes=", "--relationships="))] == files
    rows = sum(len(_csv_rows(tmp_path / "csv" / f)) - 1 for f in files)
    assert rows == sum(counts["nodes"].values()) + sum(counts["relationships"].values())


def test_every_surface_uses_the_same_door(
    imported: Graph, settings: Settings, demo: tuple[list[str], list[str]], tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient
    from pydantic import SecretStr

    from graphwire import Graphwire
    from graphwire.app.main import create_app

    lines, before = demo
    secured = settings.model_copy(update={"api_key": SecretStr("k3y"), "graph_import_max_bytes": 2000})
    with TestClient(create_app(secured)) as client:
        assert client.get("/v1/graph/export").status_code == 401
        key = {"X-API-Key": "k3y"}
        streamed = client.get("/v1/graph/export", headers=key)
        assert streamed.status_code == 200 and streamed.headers["content-type"].startswith("application/x-ndjson")
        assert streamed.text == "\n".join(lines) + "\n"
        around = client.get("/v1/graph/export", params={"entity": "Person:ada park", "hops": 2}, headers=key)
        assert around.text.splitlines() == list(exchange(imported, settings).export_lines("Person:ada park", 2))
        missing = client.get("/v1/graph/export", params={"entity": "Person:nobody"}, headers=key)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "entity_not_found"

        header = json.dumps({**json.loads(lines[0]), "counts": None})  # a file made by hand may leave them out
        bad = "\n".join([header, '{"kind": "node"', lines[1]])
        refused = client.post("/v1/graph/import", content=bad, headers=key)
        assert refused.status_code == 422, refused.text
        error = refused.json()["error"]
        assert error["code"] == "invalid_graph_file" and error["details"]["errors"][0]["line"] == 2
        too_large = client.post("/v1/graph/import", content="\n".join(lines), headers=key)
        assert too_large.status_code == 413
        node = {"kind": "node", "label": "Person", "key": "Person:ada park", "properties": {"aliases": ["Ada P."]}}
        done = client.post("/v1/graph/import", content=f"{header}\n{json.dumps(node)}\n", headers=key)
        assert done.status_code == 200 and done.json()["nodes"] == {"Person": 1}, done.text
    [ada] = imported.read("curation/entities", keys=["Person:ada park"])
    assert ada["props"]["aliases"][-1] == "Ada P."

    env = {**os.environ, "PYTHONPATH": str(REPO), "NEO4J_URI": settings.neo4j_uri,
           "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
           "STORE_LOCK_DIR": str(settings.store_lock_dir)}  # fmt: skip

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphwire.cli.main", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=240)  # fmt: skip

    exported = cli("export", "graph.jsonl")
    assert exported.returncode == 0, exported.stderr
    now = list(exchange(imported, settings).export_lines())
    assert (tmp_path / "graph.jsonl").read_text(encoding="utf-8") == "\n".join(now) + "\n"
    (tmp_path / "bad.jsonl").write_text(bad + "\n", encoding="utf-8")
    failed = cli("import", "bad.jsonl")
    assert failed.returncode == 1 and failed.stderr.startswith("error: the import file has 1 error(s)")
    assert "line 2: not JSON" in failed.stderr

    imported.write("admin/wipe")
    with Graphwire(settings) as gw:
        report = gw.import_graph(tmp_path / "graph.jsonl")
        assert sum(report.nodes.values()) + sum(report.relationships.values()) == len(now) - 1
        assert gw.export_graph(tmp_path / "again.jsonl") == len(now)
        assert gw.export_graph(tmp_path / "csv", format="neo4j-csv")[:4] == [
            "neo4j-admin",
            "database",
            "import",
            "full",
        ]
    assert (tmp_path / "again.jsonl").read_text(encoding="utf-8") == "\n".join(now) + "\n"
    assert store(imported) != before  # the alias the API import added is still there
