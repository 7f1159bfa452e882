"""User mistakes on the command line end in one line that names the fix (no traceback), and `graphwire db reset`
empties the stores only when confirmed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


def _env(settings: Settings, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "CHROMA_PATH": str(tmp_path / "chroma"),
        "CHROMA_COLLECTION": "cli_errors",
        "INGEST_STATE_PATH": str(tmp_path / "state"),
        "STORE_LOCK_DIR": str(tmp_path / "locks"),
        "COLUMNS": "200",
        **extra,
    }


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphwire.cli.main", *args], env=env, cwd=env["HOME"],
                          capture_output=True, text=True, timeout=240)  # fmt: skip


def _one_error_line(run: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert run.returncode != 0
    return lines[0]


def test_user_mistakes_are_one_line(neo4j_settings: Settings, tmp_path: Path) -> None:
    env = _env(neo4j_settings, tmp_path, HOME=str(tmp_path))
    assert "no such file or folder: missing.json" in _one_error_line(_cli(env, "ingest", "missing.json"))
    (tmp_path / "table.csv").write_text("title,body\nA,B\n", encoding="utf-8")
    assert "expected a .json, .jsonl" in _one_error_line(_cli(env, "ingest", "table.csv"))
    assert "MAX_TOP_K=50" in _one_error_line(_cli(env, "ask", "Who?", "--top-k", "500"))
    assert "MAX_TOP_K=50" in _one_error_line(_cli(env, "eval", "--demo", "--top-k", "51"))
    down = _env(neo4j_settings, tmp_path, HOME=str(tmp_path), NEO4J_URI="bolt://127.0.0.1:9")
    assert "graphwire neo4j start" in _one_error_line(_cli(down, "ingest", "table.csv"))
    assert "graphwire neo4j start" in _one_error_line(_cli(down, "ask", "Who?"))
    assert "--yes" in _one_error_line(_cli(env, "db", "reset"))


def test_db_reset_empties_the_graph_the_vectors_and_the_ingest_state(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    env = _env(neo4j_settings, tmp_path, HOME=str(tmp_path))
    demo = REPO / "data" / "demo" / "articles.jsonl"
    ingest = _cli(env, "ingest", str(demo), "--extractor", "offline")
    assert ingest.returncode == 0, ingest.stdout[-2000:] + ingest.stderr[-2000:]
    assert graph.read("check/count_nodes")[0]["nodes"] > 0
    assert _cli(env, "db", "reset").returncode == 1  # not confirmed: nothing deleted
    assert graph.read("check/count_nodes")[0]["nodes"] > 0

    reset = _cli(env, "db", "reset", "--yes")
    assert reset.returncode == 0, reset.stderr
    assert "deleted" in reset.stdout
    assert graph.read("check/count_nodes")[0]["nodes"] == 1  # the workspace's registry entry: it stays, empty
    assert graph.read("store/workspace_entry")[0]["registered"]
    settings = neo4j_settings.model_copy(update={"chroma_path": tmp_path / "chroma", "chroma_collection": "cli_errors"})
    emptied = ChunkStore.from_settings(settings)
    assert emptied.count() == 0
    assert emptied.sentences is not None and emptied.sentences.chunks_with_sentences() == set()
    assert not (tmp_path / "state").exists() or not any((tmp_path / "state").iterdir())
    again = _cli(env, "ingest", str(demo), "--extractor", "offline")  # nothing is "unchanged" after a reset
    assert again.returncode == 0 and re.search(r"documents written\D+22\b", again.stdout), again.stdout
    assert graph.read("check/count_nodes")[0]["nodes"] > 0


def test_embeddings_sentences_fills_a_store_built_without_them(neo4j_settings: Settings, tmp_path: Path) -> None:
    env = _env(neo4j_settings, tmp_path, HOME=str(tmp_path))
    settings = neo4j_settings.model_copy(update={"chroma_path": tmp_path / "chroma", "chroma_collection": "cli_errors"})
    chunks = [
        Chunk(id=f"doc:{i}", document_id="doc", index=i, text=text, title="Doc")
        for i, text in enumerate(
            ["First long sentence of the story. Second long sentence here. Third one at last."] * 2
        )
    ]
    ChunkStore.from_settings(settings.model_copy(update={"sentence_vectors": False})).upsert(chunks)
    assert "SENTENCE_VECTORS is off" in _one_error_line(
        _cli({**env, "SENTENCE_VECTORS": "false"}, "embeddings", "sentences")
    )
    filled = _cli(env, "embeddings", "sentences")
    assert filled.returncode == 0 and "written for 2 chunks" in filled.stdout, filled.stdout + filled.stderr
    store = ChunkStore.from_settings(settings)
    assert store.sentences is not None and store.sentences.chunks_with_sentences() == {"doc:0", "doc:1"}
    again = _cli(env, "embeddings", "sentences")
    assert again.returncode == 0 and "written for 0 chunks" in again.stdout


def test_ingest_on_ray_without_a_cluster_is_one_line_and_writes_nothing(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    corpus = tmp_path / "one.jsonl"
    corpus.write_text('{"title": "A", "body": "Acme Corp hired Jane Doe in Berlin.", "source": "Wire"}\n')
    env = {k: v for k, v in _env(neo4j_settings, tmp_path, HOME=str(tmp_path)).items() if k != "RAY_ADDRESS"}
    line = _one_error_line(_cli(env, "ingest", str(corpus), "--ray", "auto"))
    assert "--ray auto: no Ray cluster there" in line
    assert graph.read("ingest/count_nodes")[0]["documents"] == 0
