"""LLMExtractor against the OpenAI-compatible stub server: parsing, repair, pruning, retries, failures, cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest
from support.openai_stub import OpenAIStub, rate_limited, server_error, slow, text, tool_call

from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import CachedExtractor
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.extractors.llm import LLMExtractionFailure, LLMExtractor, restore_case
from graphwire.ingest.models import Extraction
from graphwire.schema.model import GraphSchema, load_schema

TEXT = "Sam Altman, the CEO of OpenAI, said OpenAI was sued by The New York Times in Manhattan."


def _chunk(cid: str = "c1", body: str = TEXT) -> Chunk:
    return Chunk(id=cid, document_id="d1", index=0, text=body, title="t")


def _graph(
    nodes: list[tuple[str, str]], rels: list[tuple[str, str, str, str, str]], evidence: str = ""
) -> dict[str, Any]:
    relationships = []
    for source, source_type, rel_type, target, target_type in rels:
        rel: dict[str, Any] = {
            "source_node_id": source,
            "source_node_type": source_type,
            "type": rel_type,
            "target_node_id": target,
            "target_node_type": target_type,
        }
        if evidence:
            rel["properties"] = [{"key": "evidence", "value": evidence}]
        relationships.append(rel)
    return {"nodes": [{"id": n, "type": t} for n, t in nodes], "relationships": relationships}


GOOD = _graph(
    [("Sam Altman", "Person"), ("OpenAI", "Organization")],
    [("Sam Altman", "Person", "CEO_OF", "OpenAI", "Organization")],
    evidence="Sam Altman, the CEO of OpenAI",
)


def _extract(settings: Settings, *chunks: Chunk) -> list[Extraction | ExtractionFailure]:
    return LLMExtractor(settings, load_schema()).extract(list(chunks) or [_chunk()])


def _single(results: list[Extraction | ExtractionFailure]) -> Extraction:
    [result] = results
    assert isinstance(result, Extraction), result
    return result


def test_good_tool_call_maps_to_extraction_with_case_and_evidence(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    openai_stub.script(tool_call(GOOD))
    extraction = _single(_extract(llm_settings))
    names = {(e.name, e.label) for e in extraction.entities}
    assert names == {("Sam Altman", "Person"), ("OpenAI", "Organization")}  # not the transformer's "Openai"
    [rel] = extraction.relations
    assert (rel.source, rel.type, rel.target) == ("Sam Altman", "CEO_OF", "OpenAI")
    assert rel.evidence == "Sam Altman, the CEO of OpenAI"
    assert extraction.extractor == "llm:stub-model"
    request = openai_stub.chat_requests[0]
    assert request.body["tools"][0]["function"]["name"] == "DynamicGraph"
    assert "CEO_OF: The Person is (or was) the chief executive officer" in request.message_text("user")
    assert TEXT in request.message_text("user")


def test_multi_word_labels_survive_the_transformers_capitalisation(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    body = "Sam Bankman-Fried was charged with wire fraud."
    payload = _graph(
        [("Sam Bankman-Fried", "Person"), ("wire fraud", "LegalCharge")],
        [("Sam Bankman-Fried", "Person", "CHARGED_WITH", "wire fraud", "LegalCharge")],
    )
    openai_stub.script(tool_call(payload))
    extraction = _single(_extract(llm_settings, _chunk(body=body)))
    assert {(e.name, e.label) for e in extraction.entities} == {
        ("Sam Bankman-Fried", "Person"),
        ("wire fraud", "LegalCharge"),
    }
    assert [r.target_label for r in extraction.relations] == ["LegalCharge"]


def test_malformed_tool_arguments_are_repaired(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    truncated = (
        '{"nodes": [{"id": "Sam Altman", "type": "Person"}, {"id": "OpenAI", "type": "Organization"},], '
        '"relationships": [{"source_node_id": "Sam Altman", "source_node_type": "Person", "type": "CEO_OF", '
        '"target_node_id": "OpenAI", "target_node_type": "Organization"},'
    )
    openai_stub.script(tool_call(truncated))
    extractor = LLMExtractor(llm_settings, load_schema())
    extraction = _single(extractor.extract([_chunk()]))
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    assert extractor.stats.repaired == 1


def test_prompt_mode_repairs_fenced_json_with_trailing_commas(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    settings = llm_settings.model_copy(update={"llm_extraction_mode": "prompt"})
    reply = (
        'Here you go:\n```json\n[{"head": "Sam Altman", "head_type": "Person", "relation": "CEO_OF", '
        '"tail": "OpenAI", "tail_type": "Organization"},]\n```'
    )
    openai_stub.script(text(reply))
    extraction = _single(_extract(settings))
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    assert "tools" not in openai_stub.chat_requests[0].body


def test_unrecoverable_output_is_a_failure(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    settings = llm_settings.model_copy(update={"llm_extraction_mode": "prompt"})
    openai_stub.script(text("I cannot help with that."))
    [result] = _extract(settings)
    assert isinstance(result, ExtractionFailure) and "unparseable" in result.reason


def test_off_schema_output_is_pruned_and_counted(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    payload = _graph(
        [("Sam Altman", "Person"), ("OpenAI", "Organization"), ("Manhattan", "Location"), ("Pizza", "Food")],
        [
            ("Sam Altman", "Person", "CEO_OF", "OpenAI", "Organization"),
            ("Sam Altman", "Person", "CEO_OF", "Manhattan", "Location"),  # pattern not allowed
            ("Sam Altman", "Person", "LIKES", "OpenAI", "Organization"),  # unknown type
            ("Sam Altman", "Person", "OWNS", "Pizza", "Food"),  # unknown label
        ],
    )
    openai_stub.script(tool_call(payload))
    extractor = LLMExtractor(llm_settings, load_schema())
    extraction = _single(extractor.extract([_chunk()]))
    schema = load_schema()
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    assert all(schema.allows(r.source_label, r.type, r.target_label) for r in extraction.relations)
    assert {e.label for e in extraction.entities} <= set(schema.labels)
    assert "Pizza" not in {e.name for e in extraction.entities}
    assert extractor.stats.pruned_nodes == {"off-schema label": 1}
    assert extractor.stats.pruned_relations == {
        "pattern not allowed": 1,
        "off-schema relationship type": 1,
        "off-schema endpoint label": 1,
    }


def test_timeout_then_success(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.script(slow(tool_call(GOOD), delay_s=2.0), tool_call(GOOD))
    extractor = LLMExtractor(llm_settings, load_schema())
    _single(extractor.extract([_chunk()]))
    assert len(openai_stub.chat_requests) == 2
    assert extractor.stats.retries == 1


def test_429_then_success_honours_retry_after(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    # the backoff is 0.01 s; a 0.3 s Retry-After must be waited for instead
    openai_stub.script(rate_limited(retry_after=0.3), server_error(502), tool_call(GOOD))
    extractor = LLMExtractor(llm_settings.model_copy(update={"llm_backoff_max_s": 5.0}), load_schema())
    extraction = _single(extractor.extract([_chunk()]))
    assert extraction.relations
    statuses = [r.reply_status for r in openai_stub.chat_requests]
    assert statuses == [429, 502, 200]
    assert extractor.stats.retries == 2
    times = [r.received_at for r in openai_stub.chat_requests]
    assert times[1] - times[0] >= 0.3


def test_persistent_failure_yields_failure_with_attempts_and_a_record(
    openai_stub: OpenAIStub, llm_settings: Settings, tmp_path: Path
) -> None:
    openai_stub.fallback = rate_limited(retry_after=0)
    inner = LLMExtractor(llm_settings, load_schema())
    cached = CachedExtractor(inner, tmp_path / "cache.sqlite")
    [failure] = cached.extract([_chunk()])
    assert isinstance(failure, LLMExtractionFailure)
    assert failure.attempts == llm_settings.llm_max_retries + 1
    assert len(openai_stub.chat_requests) == llm_settings.llm_max_retries + 1
    [record] = cached.cache.failures()
    assert (record.chunk_id, record.document_id, record.attempts) == ("c1", "d1", failure.attempts)
    assert "RateLimitError" in record.reason
    # --retry-failed: the server recovers, the failure record goes away
    openai_stub.fallback = tool_call(GOOD)
    retried = [c for c in [_chunk()] if c.id in cached.cache.failed_chunk_ids()]
    assert isinstance(cached.extract(retried)[0], Extraction)
    assert cached.cache.failed_chunk_ids() == set()


def test_client_errors_are_not_retried(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = server_error(400)
    [failure] = _extract(llm_settings)
    assert isinstance(failure, LLMExtractionFailure) and failure.attempts == 1
    assert len(openai_stub.chat_requests) == 1


def test_cache_hit_makes_zero_requests(openai_stub: OpenAIStub, llm_settings: Settings, tmp_path: Path) -> None:
    chunks = [_chunk("a"), _chunk("b", "Elon Musk is the CEO of Tesla.")]
    openai_stub.fallback = tool_call(GOOD)
    first = CachedExtractor(LLMExtractor(llm_settings, load_schema()), tmp_path / "cache.sqlite").extract(chunks)
    assert len(openai_stub.chat_requests) == 2
    rerun = CachedExtractor(LLMExtractor(llm_settings, load_schema()), tmp_path / "cache.sqlite")
    assert rerun.extract(chunks) == first
    assert len(openai_stub.chat_requests) == 2
    assert rerun.inner.usage.snapshot().calls == 0  # type: ignore[attr-defined]


def test_concurrency_and_usage_accounting(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = tool_call(GOOD)
    extractor = LLMExtractor(llm_settings, load_schema())
    results = extractor.extract([_chunk(f"c{i}") for i in range(5)])
    assert [r.chunk_id for r in results if isinstance(r, Extraction)] == [f"c{i}" for i in range(5)]
    usage = extractor.usage.snapshot()
    assert usage.calls == 5
    assert (usage.prompt_tokens, usage.completion_tokens) == openai_stub.reported_usage()
    assert (extractor.usage.calls, extractor.usage.total_tokens) == (5, sum(openai_stub.reported_usage()))


@pytest.mark.parametrize(
    ("name", "body", "expected"),
    [("Openai", "OpenAI said", "OpenAI"), ("New  York", "in new\nyork", "new york"), ("Absent", "nothing", "Absent")],
)
def test_restore_case(name: str, body: str, expected: str) -> None:
    assert restore_case(name, body) == expected


def test_json_schema_mode_reads_structured_content(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    settings = llm_settings.model_copy(update={"llm_extraction_mode": "json_schema"})
    openai_stub.script(text(json.dumps(GOOD)))
    extraction = _single(_extract(settings))
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    assert openai_stub.chat_requests[0].body["response_format"]["type"] == "json_schema"


def test_braces_in_schema_descriptions_do_not_break_the_prompt(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    raw = load_schema().model_dump()
    raw["node_labels"]["Person"] = "A named human being, e.g. {name: 'Ada'}."
    schema = GraphSchema.model_validate(raw)
    openai_stub.script(tool_call(GOOD))
    [result] = LLMExtractor(llm_settings, schema).extract([_chunk()])
    assert isinstance(result, Extraction)
    assert "{name: 'Ada'}" in openai_stub.chat_requests[0].message_text("user")


def test_stub_serves_embeddings(openai_stub: OpenAIStub) -> None:
    client = openai.OpenAI(base_url=openai_stub.base_url, api_key="k", max_retries=0)
    response = client.embeddings.create(model="stub-embed", input=["a", "b", "a"])
    vectors = [d.embedding for d in response.data]
    assert vectors[0] == vectors[2] != vectors[1]
    assert abs(sum(x * x for x in vectors[0]) - 1.0) < 1e-9


def test_evidence_the_chunk_does_not_contain_is_dropped(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    payload = _graph(
        [("Sam Altman", "Person"), ("OpenAI", "Organization")],
        [("Sam Altman", "Person", "CEO_OF", "OpenAI", "Organization")],
        evidence="Altman has led OpenAI since 2019.",  # plausible, but not in the chunk
    )
    openai_stub.script(tool_call(payload))
    extractor = LLMExtractor(llm_settings, load_schema())
    [rel] = _single(extractor.extract([_chunk()])).relations
    assert (rel.type, rel.evidence) == ("CEO_OF", None)
    assert extractor.stats.evidence_dropped == 1
