"""The stores disagree and are brought back together: the Chroma folder deleted (`db check` reports it, `--repair`
re-embeds from the graph; a plain re-ingest restores it too), a chunk deleted behind the pipeline's back (relationships
citing it and entities nothing mentions are reported and removed).

Before `db check` and the vector restore, an ingest after the Chroma folder was deleted reported every document
unchanged and left the vector store empty, with no warning.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import crash
from support.schemas import news_caps

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.consistency import check_store, graph_chunk_ids, repair_store
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


def _env(settings: Settings, chroma: Path) -> dict[str, str]:
    return {
        **os.environ,
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "CHROMA_PATH": str(chroma),
        "CHROMA_COLLECTION": crash.COLLECTION,
        "STORE_LOCK_DIR": str(chroma.parent / "locks"),
        "COLUMNS": "200",
    }


def _db_check(settings: Settings, chroma: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "graphwire.cli.main", "db", "check", *args]
    return subprocess.run(command, env=_env(settings, chroma), cwd=REPO, capture_output=True, text=True, timeout=240)


def test_an_emptied_vector_store_is_reported_and_repaired(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    chroma = tmp_path / "chroma"
    crash.ingest(graph, crash.corpus_v1(), crash.chroma_store(chroma))
    assert _db_check(neo4j_settings, chroma).returncode == 0
    shutil.rmtree(chroma)

    found = _db_check(neo4j_settings, chroma)
    assert found.returncode == 1, found.stdout + found.stderr
    chunks = len(graph_chunk_ids(graph))
    assert f"{chunks} graph chunks without a vector" in found.stdout

    repaired = _db_check(neo4j_settings, chroma, "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "consistent" in repaired.stdout
    assert sorted(crash.chroma_store(chroma).ids()) == sorted(graph_chunk_ids(graph))


def test_a_plain_reingest_restores_the_vectors_it_finds_missing(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    chroma = tmp_path / "chroma"
    crash.ingest(graph, crash.corpus_v1(), crash.chroma_store(chroma))
    shutil.rmtree(chroma)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(a.model_dump_json() + "\n" for a in crash.corpus_v1()))
    env = {**_env(neo4j_settings, chroma), "INGEST_STATE_PATH": str(tmp_path / "state")}
    run = subprocess.run([sys.executable, "-m", "graphwire.cli.main", "ingest", str(corpus)], env=env, cwd=REPO,
                         capture_output=True, text=True, timeout=240)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    chunks = len(graph_chunk_ids(graph))
    assert re.search(rf"documents unchanged \(skipped\)\s*│\s*{len(crash.corpus_v1())}\b", run.stdout), run.stdout
    assert re.search(rf"vectors restored from the graph\s*│\s*{chunks}\b", run.stdout), run.stdout
    assert _db_check(neo4j_settings, chroma).returncode == 0


def test_a_chunk_deleted_behind_the_pipeline_leaves_damage_that_repair_removes(graph: Graph, tmp_path: Path) -> None:
    store = crash.chroma_store(tmp_path / "chroma")
    crash.ingest(graph, crash.corpus_v1(), store)
    victim = crash.corpus_v1()[9].doc_id  # its entities are mentioned nowhere else (the Whitaker charges)
    graph.write("check/delete_document_chunks_raw", document_id=victim)
    found = check_store(graph, store, news_caps())
    assert found.orphan_entities and found.unsupported_relationships and found.stray_vectors
    assert "Person:jonah whitaker" in found.orphan_entities

    repaired = repair_store(graph, store, found, news_caps(), load_schema().roles)
    assert repaired.entities_removed == len(found.orphan_entities)
    assert repaired.relationships_deleted >= len(found.unsupported_relationships)
    assert repaired.vectors_deleted == len(found.stray_vectors)
    after = check_store(graph, store, news_caps())
    assert after.problems() == {}


def test_entities_without_lookup_keys_are_reported_and_repaired(graph: Graph, tmp_path: Path) -> None:
    """An entity a graphwire without lookup keys wrote into a migrated store: ingest could not find it by name, so
    the next run would write a duplicate. `db check` reports it, `--repair` gives it its keys."""
    store = crash.chroma_store(tmp_path / "chroma")
    crash.ingest(graph, crash.corpus_v1()[:3], store)
    expected = crash.export_store(graph, store)
    graph.write("fixture/strip_entity_lookup")
    found = check_store(graph, store, news_caps())
    entities = sum(1 for node in expected["nodes"] if any(key == "fuzzy_key" for key, _ in node))
    assert len(found.entities_without_lookup) == entities > 0
    assert found.problems() == {"entities without lookup keys": len(found.entities_without_lookup)}
    repaired = repair_store(graph, store, found, news_caps(), load_schema().roles)
    assert repaired.lookup_keys_filled == len(found.entities_without_lookup)
    assert check_store(graph, store, news_caps()).problems() == {}
    assert crash.export_store(graph, store) == expected
