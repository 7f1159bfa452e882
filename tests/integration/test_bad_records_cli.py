"""`graphwire ingest` on a file with bad records: each is reported by position, title (escaped) and reason, the rest
of the file is ingested, the exit code says records were skipped; NUL bytes are never stored; `--delete` of an unknown
document exits non-zero; a second writer is refused with a message naming the first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.store_lock import WriterLock

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo" / "articles.jsonl"


def _cli(settings: Settings, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "INGEST_STATE_PATH": str(tmp_path / "state"),
        "STORE_LOCK_DIR": str(tmp_path / "locks"),
        "COLUMNS": "200",
    }
    return subprocess.run([sys.executable, "-m", "graphwire.cli.main", "ingest", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=240)  # fmt: skip


def _corpus(tmp_path: Path) -> tuple[Path, list[dict[str, str]]]:
    demo = [json.loads(line) for line in DEMO.read_text().splitlines()[:3]]
    lines = [
        json.dumps(demo[0]),
        json.dumps({**demo[1], "url": demo[0]["url"]}),  # 2: the same url as record 1
        json.dumps({**demo[1], "title": "Lumen\ud800 names a chief"}),  # 3: a lone surrogate (escaped by json.dumps)
        json.dumps({"body": "A report without a title.", "source": "Nowhere"}),  # 4
        json.dumps({"title": "[bold]An empty body[/bold]", "body": "   "}),  # 5: rich markup in a title stays text
        json.dumps({**demo[2], "body": demo[2]["body"].replace("Northwind Robotics", "North\u0000wind Robotics")}),
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, demo


def test_bad_records_are_reported_and_the_rest_ingested(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    path, demo = _corpus(tmp_path)
    run = _cli(neo4j_settings, tmp_path, str(path), "--no-vectors")
    out = run.stdout + run.stderr
    assert run.returncode == 3, out[-3000:]  # 3: records skipped, the others ingested
    assert "Traceback" not in out
    assert "corpus.jsonl:2" in out and "duplicate" in out and "corpus.jsonl:1" in out
    assert "corpus.jsonl:4" in out and "no title" in out
    assert "corpus.jsonl:5" in out and "[bold]An empty body[/bold]" in out and "no body text" in out
    stored = graph.read("ingest/document_hashes", ids=[d["url"] for d in demo])
    assert {r["id"] for r in stored if r["content_hash"]} == {d["url"] for d in demo}  # records 1, 3 and 6
    titles = {r["title"] for r in graph.read("check/document_titles")}
    assert "Lumen\ufffd names a chief" in titles
    assert graph.read("check/nul_bytes", nul="\x00")[0]["n"] == 0


def test_deleting_an_unknown_document_fails_with_a_message(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    run = _cli(neo4j_settings, tmp_path, "--no-vectors", "--delete", "no such document")
    assert run.returncode == 1
    assert "no document with id or exact title 'no such document'" in run.stdout + run.stderr


def test_a_second_writer_is_refused_while_the_store_is_being_written(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    lock = WriterLock.for_settings(neo4j_settings.model_copy(update={"store_lock_dir": tmp_path / "locks"}))
    with lock.hold("a document job"):
        run = _cli(neo4j_settings, tmp_path, str(DEMO), "--no-vectors", "--limit", "1")
    assert run.returncode == 1
    message = run.stdout + run.stderr
    assert "'a document job'" in message and f"pid {os.getpid()}" in message and "Traceback" not in message
    assert not graph.read("ingest/document_hashes", ids=[json.loads(DEMO.read_text().splitlines()[0])["url"]])
