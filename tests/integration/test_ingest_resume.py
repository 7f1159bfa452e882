"""A run killed mid-way (SIGKILL inside a batch, after some of its writes) and resumed: no duplicates, nothing lost.

The killed run is a real subprocess; the resumed graph must equal the graph a clean uninterrupted run builds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.ingest.report import IngestReport
from graphwire.ingest.resolve import EntityResolver
from graphwire.ingest.state import StateStore
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo" / "articles.jsonl"
BATCH_DOCUMENTS = 4
# Killed when batch 3 is about to write its MENTIONS: its documents and chunks are in, its commit marker is not.
KILL_AT = ("ingest/create_mentions", 3)

KILLED_RUN = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from graphwire.core.clients.graph import Graph
    from graphwire.core.settings import Settings
    from tests.integration.test_ingest_resume import ingest_demo

    kill_name, kill_at, state_dir = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    calls = 0
    real_write = Graph.write

    def write(self, name, **params):
        global calls
        calls += name == kill_name
        if calls == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real_write(self, name, **params)

    Graph.write = write
    ingest_demo(Graph.from_settings(Settings()), state_dir, resume=False)
    """
)


def ingest_demo(graph: Graph, state_dir: Path, resume: bool) -> IngestReport:
    articles = load_articles(DEMO).articles
    gazetteer = Gazetteer.from_sources((a.source for a in articles), schema=load_schema()).with_file(
        DEMO.parent / "gazetteer.yaml"
    )
    schema = load_schema()
    extractor = OfflineExtractor(schema, gazetteer)
    state = StateStore(state_dir, str(DEMO), extractor.name, schema.fingerprint)
    if resume:
        state.load()
    return ingest_articles(
        articles,
        graph,
        extractor,
        schema=schema,
        options=IngestOptions(progress=False, batch_documents=BATCH_DOCUMENTS),
        resolver=EntityResolver(publication_aliases=gazetteer.publication_aliases(), schema=load_schema()),
        state=state,
    )


def snapshot(graph: Graph) -> dict[str, Any]:
    return {
        "counts": sorted((r["kind"], r["name"], r["n"]) for r in graph.read("browser/05_schema_counts")),
        "entities": sorted(r["key"] for r in graph.read("ingest/existing_entities")),
        "facts": sorted(
            (r["source"], r["type"], r["target"], tuple(sorted(r["chunk_ids"] or [])))
            for r in graph.read("ingest/export_facts")
        ),
    }


def test_killed_run_resumes_without_duplicates_or_losses(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.neo4j_uri,
        "NEO4J_PASSWORD": neo4j_settings.resolved_neo4j_password(),
        "PYTHONPATH": str(REPO),
    }
    script = tmp_path / "killed_run.py"
    script.write_text(KILLED_RUN)
    state_dir = tmp_path / "state"
    killed = subprocess.run(
        [sys.executable, str(script), KILL_AT[0], str(KILL_AT[1]), str(state_dir)],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    articles = load_articles(DEMO).articles
    hashes = graph.read("ingest/document_hashes", ids=[a.doc_id for a in articles])
    committed = [h for h in hashes if h["content_hash"]]
    assert len(committed) == 2 * BATCH_DOCUMENTS  # two whole batches
    assert len(hashes) > len(committed)  # the third batch had started writing

    resumed = ingest_demo(graph, state_dir, resume=True)
    assert resumed.documents_resumed == 2 * BATCH_DOCUMENTS
    assert resumed.documents_written == len(articles) - 2 * BATCH_DOCUMENTS
    after_resume = snapshot(graph)
    assert all(v == 0 for v in graph.read("browser/08_provenance_check")[0].values())

    graph.write("admin/wipe")
    clean = ingest_demo(graph, tmp_path / "clean-state", resume=False)
    assert clean.documents_written == len(articles)
    assert after_resume == snapshot(graph)
