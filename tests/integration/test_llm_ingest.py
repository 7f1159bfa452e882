"""The LLM extraction path end to end: stub LLM -> LLMExtractor -> extraction cache -> ingestion -> real Neo4j."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from support.openai_stub import OpenAIStub, StubReply, server_error, tool_call

from graphwire.core.documents import Article
from graphwire.core.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import CachedExtractor
from graphwire.ingest.extractors.llm import LLMExtractor
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration

ARTICLES = [
    Article(
        title="Altman returns",
        body="Sam Altman, the CEO of OpenAI, returned to the company on Wednesday, the board said.",
        source="TechCrunch",
        published_at=date(2023, 11, 22),
        url="https://example.test/altman",
    ),
    Article(
        title="Musk sues",
        body="Elon Musk sued OpenAI in a San Francisco court, claiming a breach of contract.",
        source="The Verge",
        published_at=date(2024, 3, 1),
        url="https://example.test/musk",
    ),
    Article(
        title="Outage",
        body="FAILME this article always breaks the model server.",
        source="Wired",
        published_at=date(2024, 3, 2),
        url="https://example.test/outage",
    ),
]

GRAPHS: dict[str, dict[str, Any]] = {
    "Sam Altman": {
        "nodes": [{"id": "Sam Altman", "type": "Person"}, {"id": "OpenAI", "type": "Organization"}],
        "relationships": [
            {
                "source_node_id": "Sam Altman",
                "source_node_type": "Person",
                "type": "CEO_OF",
                "target_node_id": "OpenAI",
                "target_node_type": "Organization",
                "properties": [{"key": "evidence", "value": "Sam Altman, the CEO of OpenAI"}],
            },
            {  # off-schema: pruned
                "source_node_id": "Sam Altman",
                "source_node_type": "Person",
                "type": "RETURNED_TO",
                "target_node_id": "OpenAI",
                "target_node_type": "Organization",
            },
        ],
    },
}
# The Musk chunk gets malformed (truncated) tool arguments that only JSON repair recovers.
MUSK_TRUNCATED = (
    '{"nodes": [{"id": "Elon Musk", "type": "Person"}, {"id": "OpenAI", "type": "Organization"}], '
    '"relationships": [{"source_node_id": "Elon Musk", "source_node_type": "Person", "type": "SUED", '
    '"target_node_id": "OpenAI", "target_node_type": "Organization"},'
)


def responder(request: dict[str, Any]) -> StubReply:
    """Answers by the chunk text in the prompt, like a model would."""
    user = "\n".join(str(m.get("content")) for m in request["messages"] if m.get("role") == "user")
    chunk = re.split(r"following input:", user)[-1]
    if "FAILME" in chunk:
        return server_error(500)
    if "Elon Musk" in chunk:
        return tool_call(MUSK_TRUNCATED)(request)
    return tool_call(GRAPHS["Sam Altman"])(request)


def _ingest(settings: Settings, graph: Graph, cache: Path, force: bool = False) -> tuple[Any, CachedExtractor]:
    schema = load_schema()
    extractor = CachedExtractor(LLMExtractor(settings, schema), cache)
    options = IngestOptions(progress=False, force=force)
    report = ingest_articles(ARTICLES, graph, extractor, schema=schema, options=options)
    return report, extractor


def _facts(graph: Graph) -> set[tuple[str, str, str, tuple[str, ...]]]:
    rows = graph.read("admin/entity_relationships", limit=1000)
    return {(r["subject"], r["relationship"], r["object"], tuple(e for e in r["evidence"] if e)) for r in rows}


def test_llm_ingestion_with_repair_pruning_failures_and_cache(
    graph: Graph, openai_stub: OpenAIStub, llm_settings: Settings, tmp_path: Path
) -> None:
    openai_stub.fallback = responder
    cache = tmp_path / "extractions.sqlite"
    report, extractor = _ingest(llm_settings, graph, cache)

    assert _facts(graph) == {
        ("Sam Altman", "CEO_OF", "OpenAI", ("Sam Altman, the CEO of OpenAI",)),
        ("Elon Musk", "SUED", "OpenAI", ()),
    }
    schema = load_schema()
    assert {r["label"] for r in graph.read("ingest/count_entities_by_label")} <= set(schema.labels)
    types = {r["type"] for r in graph.read("ingest/count_relationships_by_type")}
    assert "RETURNED_TO" not in types
    inner = extractor.inner
    assert isinstance(inner, LLMExtractor)
    assert inner.stats.repaired == 1
    assert inner.stats.pruned_relations == {"off-schema relationship type": 1}
    [failure] = report.failures
    [record] = extractor.cache.failures()
    assert record.chunk_id == failure.chunk_id
    assert record.document_id == "https://example.test/outage"
    assert record.attempts == llm_settings.llm_max_retries + 1
    assert report.llm_calls == 2  # successful calls; the failing chunk's attempts are failed calls

    # A re-run: the two good chunks are cache hits, only the failed document's chunk goes to the model again.
    before = len(openai_stub.chat_requests)
    _, rerun = _ingest(llm_settings, graph, cache)
    asked = openai_stub.chat_requests[before:]
    assert asked and all("FAILME" in r.message_text("user") for r in asked)
    assert rerun.stats.misses == 1 and rerun.inner.usage.calls == 0  # type: ignore[attr-defined]
    # Forced re-ingestion of everything: the good chunks come from the cache at zero calls.
    _, forced = _ingest(llm_settings, graph, cache, force=True)
    assert (forced.stats.hits, forced.stats.misses) == (2, 1)
    assert forced.inner.usage.calls == 0  # type: ignore[attr-defined]
    assert _facts(graph) == {
        ("Sam Altman", "CEO_OF", "OpenAI", ("Sam Altman, the CEO of OpenAI",)),
        ("Elon Musk", "SUED", "OpenAI", ()),
    }
