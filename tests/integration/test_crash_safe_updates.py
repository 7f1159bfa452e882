"""A run killed (SIGKILL, a real subprocess) during an update or a delete, then the same step again: the store equals
the one the uninterrupted step builds: every node, relationship, provenance list and vector id, no orphan left.

Before the orphan marks and the pending deletes (ingest/pending.py), the entities a killed update or delete had
orphaned stayed for good: the list lived in memory, and the re-run skipped the documents already committed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import crash
from support.schemas import news_caps

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.consistency import check_store

pytestmark = pytest.mark.integration
TESTS = Path(__file__).resolve().parents[1]
KILLS = [
    ("update", "after_batch:1"),  # the first batch of changed documents committed, the orphan sweep not run
    ("update", "ingest/mark_documents_done:2"),  # inside the second batch: stale chunks gone, commit marker not set
    ("delete", "ingest/delete_document:1"),  # chunks and provenance gone, the document not
    ("delete", "ingest/sweep_orphan_entities:2"),  # the document gone, its orphans not swept
]
_expected: dict[str, dict[str, Any]] = {}


def _fresh(graph: Graph, folder: Path) -> crash.ChunkStore:
    graph.write("admin/wipe")
    store = crash.chroma_store(folder)
    crash.ingest(graph, crash.corpus_v1(), store)
    return store


def expected_after(step: str, graph: Graph, tmp_path: Path) -> dict[str, Any]:
    """The store after the uninterrupted step (built once per step)."""
    if step not in _expected:
        store = _fresh(graph, tmp_path / "reference")
        crash.run_step(step, graph, store)
        _expected[step] = crash.export_store(graph, store)
    return _expected[step]


def _killed_subprocess(step: str, kill: str, settings: Settings, chroma: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "CHROMA_PATH": str(chroma),
    }
    command = [sys.executable, "-m", "support.crash", step, kill]
    return subprocess.run(command, env=env, cwd=TESTS, capture_output=True, text=True, timeout=240)


@pytest.mark.parametrize(("step", "kill"), KILLS)
def test_a_killed_update_or_delete_is_finished_by_the_next_run(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path, step: str, kill: str
) -> None:
    expected = expected_after(step, graph, tmp_path)
    _fresh(graph, tmp_path / "chroma")
    before_entities = len(graph.read("ingest/existing_entities"))
    killed = _killed_subprocess(step, kill, neo4j_settings, tmp_path / "chroma")
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]

    store = crash.chroma_store(tmp_path / "chroma")
    crash.run_step(step, graph, store)  # the same step again, nothing told about the crash
    assert crash.export_store(graph, store) == expected
    assert check_store(graph, store, news_caps()).ok
    # the step does orphan entities, so a store that kept them would differ
    assert sum(1 for node in expected["nodes"] if _is_entity(node)) < before_entities


def _is_entity(node: tuple[Any, ...]) -> bool:
    return any(key == "labels" and "Entity" in value for key, value in node)


def test_a_killed_delete_is_finished_by_a_plain_ingest(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    """Any later run finishes it: here an ingest of the other documents, which names no delete at all."""
    expected = expected_after("delete", graph, tmp_path)
    _fresh(graph, tmp_path / "chroma")
    killed = _killed_subprocess("delete", "ingest/delete_document:1", neo4j_settings, tmp_path / "chroma")
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    store = crash.chroma_store(tmp_path / "chroma")
    rest = [a for i, a in enumerate(crash.corpus_v1()) if i != crash.DELETED]
    report = crash.ingest(graph, rest, store)
    assert report.deletes_finished == 1 and report.documents_unchanged == len(rest)
    assert crash.export_store(graph, store) == expected


def test_entities_a_killed_run_wrote_before_their_mentions_go_when_a_change_drops_them(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    """Killed after a batch's entities were written and before their MENTIONS; the document is then changed back so
    that nothing names them: the next run leaves the store a clean ingest of that corpus builds."""
    expected_store = _fresh(graph, tmp_path / "reference")
    expected = crash.export_store(graph, expected_store)
    _fresh(graph, tmp_path / "chroma")
    killed = _killed_subprocess("name", "ingest/merge_mentions:1", neo4j_settings, tmp_path / "chroma")
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    assert graph.read("store/orphan_entities", limit=100)  # the new names' entities, no MENTIONS yet

    store = crash.chroma_store(tmp_path / "chroma")
    crash.ingest(graph, crash.corpus_v1(), store)  # the document as it was: the new names are gone from it
    assert crash.export_store(graph, store) == expected
    assert check_store(graph, store, news_caps()).ok
