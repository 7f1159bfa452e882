"""The API serves while another process (`graphwire ingest`, a real subprocess) writes the same Neo4j and the same
local Chroma folder: no request fails, and afterwards every mode finds the new documents without a restart.

Before the reopen on a foreign revision (core/clients/chunk_store.py), the API's Chroma client kept its old view of the
folder: bm25, fused, flat_plus and hybrid failed with `InternalError: Error finding id` on every rebuild, and vector
mode never saw the new documents.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support import crash

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.loaders import load_articles

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
MODES = ("vector", "bm25", "fused", "flat_plus", "hybrid", "graph")
FIRST = 6  # documents in the store when the API starts; the other process adds the rest of the demo corpus
QUESTION = "Who was charged with money laundering and wire fraud?"  # answered only by a document added later


def _ask(client: TestClient, mode: str) -> tuple[int, list[str]]:
    response = client.post("/v1/retrieve", json={"question": QUESTION, "mode": mode, "top_k": 5})
    if response.status_code != 200:
        return response.status_code, [response.text[:300]]
    return 200, [c["document_id"] for c in response.json()["chunks"]]


def test_an_ingest_by_another_process_is_served_fresh_without_errors(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    settings = neo4j_settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "chroma_collection": crash.COLLECTION, "ppr_snapshot_check_s": 0.0}
    )
    articles = load_articles(crash.DEMO).articles
    crash.ingest(graph, articles[:FIRST], crash.chroma_store(settings.chroma_path))
    later = [a for a in articles[FIRST:] if "whitaker" in (a.url or "")]
    assert later, "the question's document must come from the second ingest"
    corpus = tmp_path / "later.jsonl"
    corpus.write_text("".join(json.dumps(a.model_dump(mode="json")) + "\n" for a in articles[FIRST:]))
    env = {
        **os.environ,
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "CHROMA_PATH": str(settings.chroma_path),
        "CHROMA_COLLECTION": crash.COLLECTION,
        "INGEST_STATE_PATH": str(tmp_path / "state"),
        "STORE_LOCK_DIR": str(tmp_path / "locks"),
    }
    with TestClient(create_app(settings)) as client:
        before = {mode: _ask(client, mode) for mode in MODES}
        assert all(status == 200 for status, _ in before.values()), before
        assert not any(later[0].doc_id in ids for _, ids in before.values())
        ingesting = subprocess.Popen(
            [sys.executable, "-m", "graphwire.cli.main", "ingest", str(corpus), "--batch-docs", "4"],
            env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        during = []
        while ingesting.poll() is None:  # requests in every mode while the other process writes
            during.extend((mode, *_ask(client, mode)) for mode in MODES)
        output = ingesting.communicate()[0]
        assert ingesting.returncode == 0, output[-3000:]
        assert during and all(status < 500 for _, status, _ in during), [d for d in during if d[1] >= 500][:3]
        after = {mode: _ask(client, mode) for mode in MODES}
    for mode, (status, ids) in after.items():
        assert status == 200, (mode, ids)
        assert later[0].doc_id in ids, f"{mode} does not see the document the other process ingested: {ids}"
