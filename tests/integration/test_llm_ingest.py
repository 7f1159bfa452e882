"""The LLM extraction path end to end: stub LLM -> LLMExtractor -> extraction cache -> ingestion -> real Neo4j."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from support.openai_stub import OpenAIStub, StubReply, server_error, text

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article, Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import CachedExtractor
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.extractors.llm import LLMExtractor
from graphwire.ingest.models import Extraction
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

ALTMAN_REPLY: dict[str, Any] = {
    "entities": [{"name": "Sam Altman", "label": "Person"}, {"name": "OpenAI", "label": "Organization"}],
    "relationships": [
        {"source": "Sam Altman", "type": "CEO_OF", "target": "OpenAI", "evidence": "Sam Altman, the CEO of OpenAI"},
        {"source": "Sam Altman", "type": "RETURNED_TO", "target": "OpenAI"},  # off-schema: pruned
    ],
}
# The Musk chunk gets malformed (truncated) JSON that only JSON repair recovers.
MUSK_TRUNCATED = (
    '{"entities": [{"name": "Elon Musk", "label": "Person"}, {"name": "OpenAI", "label": "Organization"}], '
    '"relationships": [{"source": "Elon Musk", "type": "SUED", "target": "OpenAI"},'
)


def responder(request: dict[str, Any]) -> StubReply:
    """Answers by the chunk text in the prompt, like a model would."""
    chunk = "\n".join(str(m.get("content")) for m in request["messages"] if m.get("role") == "user")
    if "FAILME" in chunk:
        return server_error(500)
    if "Elon Musk" in chunk:
        return text(MUSK_TRUNCATED)(request)
    return text(json.dumps(ALTMAN_REPLY))(request)


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
    # the summary counts what the extractor itself repaired, retried, failed and dropped
    assert report.extraction["repaired replies"] == 1
    assert report.extraction["failed chunks"] == 1
    assert report.extraction["retried calls"] == llm_settings.llm_max_retries
    assert report.extraction["relationships dropped: off-schema relationship type"] == 1

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


class _OtherExtractor:
    """Stands for the offline extractor: a different name, no entities."""

    name = "offline"
    version = "test"

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        return [Extraction(chunk_id=c.id, extractor=self.name) for c in chunks]


def test_switching_to_the_llm_extractor_re_extracts_unchanged_documents(
    graph: Graph, openai_stub: OpenAIStub, llm_settings: Settings, tmp_path: Path
) -> None:
    openai_stub.fallback = responder
    articles, schema = ARTICLES[:2], load_schema()
    first = ingest_articles(articles, graph, _OtherExtractor(), schema=schema, options=IngestOptions(progress=False))
    assert first.documents_written == 2 and not _facts(graph)

    extractor = CachedExtractor(LLMExtractor(llm_settings, schema), tmp_path / "extractions.sqlite")
    switched = ingest_articles(articles, graph, extractor, schema=schema, options=IngestOptions(progress=False))
    assert (switched.documents_reextracted, switched.documents_unchanged, switched.documents_written) == (2, 0, 2)
    assert len(openai_stub.chat_requests) == 2
    assert ("Sam Altman", "CEO_OF", "OpenAI", ("Sam Altman, the CEO of OpenAI",)) in _facts(graph)

    again = ingest_articles(articles, graph, extractor, schema=schema, options=IngestOptions(progress=False))
    assert (again.documents_reextracted, again.documents_unchanged) == (0, 2)
