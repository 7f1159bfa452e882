"""`graphwire ingest --extractor langchain` against the real local model (Qwen2.5-Coder-0.5B-Instruct served by
llama.cpp, through LangChain's ChatOpenAI): one short original document into a real Neo4j through the normal ingest
door. What lands in the graph is schema-valid and grounded, with provenance; the model's judgement is not asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphwire.core.clients.graph import Graph
from graphwire.core.servers.llm_model import MODEL_NAME
from graphwire.core.servers.llm_server import LocalLLMServer
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import ExtractionCache
from graphwire.ingest.extractors.grounding import occurs
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
BODY = "Iris Calder is the chief executive of Brasswell Foundry. Kettle Valley Rail sued Brasswell Foundry."


def test_langchain_extractor_writes_grounded_schema_valid_facts_with_provenance(
    graph: Graph, neo4j_settings: Settings, real_llm: LocalLLMServer, tmp_path: Path
) -> None:
    corpus = tmp_path / "doc.jsonl"
    record = {"title": "Brasswell", "body": BODY, "source": "Harbour Ledger", "published_at": "2026-02-03",
              "url": "https://example.test/brasswell"}  # fmt: skip
    corpus.write_text(json.dumps(record) + "\n", encoding="utf-8")
    cache = tmp_path / "extractions.sqlite"
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.neo4j_uri,
        "NEO4J_PASSWORD": neo4j_settings.resolved_neo4j_password(),
        "LLM_BASE_URL": real_llm.base_url,
        "LLM_MODEL": MODEL_NAME,
        "LLM_MAX_RETRIES": "0",
        "EXTRACTION_CACHE_PATH": str(cache),
        "INGEST_STATE_PATH": str(tmp_path / "state"),
        "STORE_LOCK_DIR": str(tmp_path / "locks"),
        "COLUMNS": "200",
    }
    run = subprocess.run(
        [sys.executable, "-m", "graphwire.cli.main", "ingest", str(corpus), "--extractor", "langchain", "--no-vectors"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=280,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    assert "LLM calls / tokens" in out, out[-3000:]

    schema = load_schema()
    facts = graph.read("check/entity_facts")
    assert facts, out[-3000:]  # at least one relationship the model proposed survived the checks
    chunk_ids = {row["id"] for row in graph.read("check/chunk_ids")}
    for fact in facts:
        [subject_label], [object_label] = fact["subject_labels"], fact["object_labels"]
        assert schema.allows(subject_label, fact["type"], object_label), fact
        assert occurs(fact["subject"], BODY) and occurs(fact["object"], BODY), fact
        assert fact["chunk_ids"] and set(fact["chunk_ids"]) <= chunk_ids, fact
        assert all(not e or " ".join(e.split()).lower() in BODY.lower() for e in fact["evidence"]), fact
    cached = ExtractionCache(cache)
    assert len(cached) == 1  # the chunk's extraction, under the LangChain extractor's name
    cached.close()
