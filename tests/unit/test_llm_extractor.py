"""LLMExtractor against the OpenAI-compatible stub server: prompt, bounds, parsing, repair, pruning, grounding,
retries, failures, cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest
from support.openai_stub import OpenAIStub, StubReply, rate_limited, server_error, slow, text, tool_call

from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import CachedExtractor
from graphwire.ingest.extractors import llm_prompt
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.extractors.grounding import LLMExtractionFailure, occurs, restore_case
from graphwire.ingest.extractors.llm import LLMExtractor
from graphwire.ingest.models import Extraction
from graphwire.schema.model import GraphSchema, load_schema

TEXT = "Sam Altman, the CEO of OpenAI, said OpenAI was sued by The New York Times in Manhattan."


def _chunk(cid: str = "c1", body: str = TEXT) -> Chunk:
    return Chunk(id=cid, document_id="d1", index=0, text=body, title="t")


def _graph(entities: list[tuple[str, str]], rels: list[tuple[str, str, str]], evidence: str = "") -> dict[str, Any]:
    """A reply in the extractor's shape: entities with labels, relationships naming their endpoints."""
    relationships: list[dict[str, Any]] = []
    for source, rel_type, target in rels:
        rel = {"source": source, "type": rel_type, "target": target}
        if evidence:
            rel["evidence"] = evidence
        relationships.append(rel)
    return {"entities": [{"name": n, "label": t} for n, t in entities], "relationships": relationships}


GOOD = _graph(
    [("Sam Altman", "Person"), ("OpenAI", "Organization")],
    [("Sam Altman", "CEO_OF", "OpenAI")],
    evidence="Sam Altman, the CEO of OpenAI",
)


def _extract(settings: Settings, *chunks: Chunk) -> list[Extraction | ExtractionFailure]:
    return LLMExtractor(settings, load_schema()).extract(list(chunks) or [_chunk()])


def _single(results: list[Extraction | ExtractionFailure]) -> Extraction:
    [result] = results
    assert isinstance(result, Extraction), result
    return result


def _reply(payload: dict[str, Any] | str, delay_s: float = 0.0) -> Any:
    return text(payload if isinstance(payload, str) else json.dumps(payload), delay_s=delay_s)


def test_json_schema_reply_maps_to_extraction_with_case_and_evidence(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    lowered = _graph(
        [("sam altman", "person"), ("OPENAI", "Organization")],
        [("sam altman", "ceo_of", "OPENAI")],
        "Sam Altman, the CEO of OpenAI",
    )
    openai_stub.script(_reply(lowered))
    extraction = _single(_extract(llm_settings))
    assert {(e.name, e.label) for e in extraction.entities} == {("Sam Altman", "Person"), ("OpenAI", "Organization")}
    [rel] = extraction.relations
    assert (rel.source, rel.type, rel.target, rel.evidence) == (
        "Sam Altman",
        "CEO_OF",
        "OpenAI",
        "Sam Altman, the CEO of OpenAI",
    )
    assert extraction.extractor == "llm:stub-model"
    request = openai_stub.chat_requests[0]
    reply_schema = request.body["response_format"]["json_schema"]["schema"]
    bounds = llm_prompt.bounds_for(TEXT)
    assert reply_schema["properties"]["entities"]["maxItems"] == bounds.entities
    assert reply_schema["properties"]["relationships"]["maxItems"] == bounds.relationships
    assert reply_schema["properties"]["relationships"]["items"]["properties"]["type"]["enum"] == load_schema().types
    assert request.body["max_tokens"] == bounds.max_tokens
    assert "CEO_OF: Person -> Organization|Publication. The Person is (or was)" in request.message_text("system")
    assert TEXT in request.message_text("user") and TEXT not in request.message_text("system")
    assert "tools" not in request.body


def test_the_system_prompt_holds_the_schema_once_and_compactly() -> None:
    schema = load_schema()
    prompt = llm_prompt.system_prompt(schema)
    assert len(prompt) / 4 <= 1200  # about 4 characters per token: within the 1,200-token budget
    for rel_type in schema.types:
        assert prompt.count(f"- {rel_type}:") == 1
    for label in schema.labels:
        assert prompt.count(f"- {label}:") == 1
    assert "Not a news outlet" not in prompt  # only the first sentence of a description
    assert '"<name A>"' in prompt  # the example's names are placeholders, which grounding drops


def test_bounds_grow_with_the_chunk_and_llm_max_tokens_overrides_the_cap() -> None:
    short, long = llm_prompt.bounds_for("x" * 200), llm_prompt.bounds_for("x" * 1500)
    assert (short.entities, short.relationships) == (3, 2)
    assert long.entities > short.entities and long.relationships > short.relationships
    assert long.max_tokens > short.max_tokens
    assert llm_prompt.bounds_for("x" * 1500, max_tokens=77).max_tokens == 77


def test_tools_mode_forces_one_function_with_the_reply_schema(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    settings = llm_settings.model_copy(update={"llm_extraction_mode": "tools"})
    openai_stub.script(tool_call(GOOD))
    extraction = _single(_extract(settings))
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    body = openai_stub.chat_requests[0].body
    assert body["tools"][0]["function"]["name"] == body["tool_choice"]["function"]["name"] == llm_prompt.TOOL_NAME
    assert body["tools"][0]["function"]["parameters"]["properties"]["entities"]["maxItems"] >= 3


def test_a_tool_call_left_as_text_is_read(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    settings = llm_settings.model_copy(update={"llm_extraction_mode": "tools"})
    openai_stub.script(_reply({"name": llm_prompt.TOOL_NAME, "arguments": GOOD}))
    assert _single(_extract(settings)).relations


def test_malformed_json_is_repaired_and_counted(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    truncated = (
        '{"entities": [{"name": "Sam Altman", "label": "Person"}, {"name": "OpenAI", "label": "Organization"},], '
        '"relationships": [{"source": "Sam Altman", "type": "CEO_OF", "target": "OpenAI"},'
    )
    openai_stub.script(_reply(truncated))
    extractor = LLMExtractor(llm_settings, load_schema())
    extraction = _single(extractor.extract([_chunk()]))
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    assert extractor.stats.repaired == 1


def test_a_reply_cut_at_the_cap_keeps_what_is_complete(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    cut = '{"entities": [{"name": "Sam Altman", "label": "Person"}, {"name": "Open'

    def respond(request: dict[str, Any]) -> StubReply:
        message = {"role": "assistant", "content": cut}
        body = {"id": "x", "object": "chat.completion", "created": 0, "model": request["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "length"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}  # fmt: skip
        return StubReply(body=body)

    openai_stub.script(respond)
    extractor = LLMExtractor(llm_settings, load_schema())
    extraction = _single(extractor.extract([_chunk()]))
    assert [e.name for e in extraction.entities] == ["Sam Altman"]
    assert (extractor.stats.truncated, extractor.stats.repaired) == (1, 1)


def test_prompt_mode_repairs_fenced_json_with_trailing_commas(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    settings = llm_settings.model_copy(update={"llm_extraction_mode": "prompt"})
    reply = (
        'Here you go:\n```json\n{"entities": [{"name": "Sam Altman", "label": "Person"}, {"name": "OpenAI", '
        '"label": "Organization"},], "relationships": [{"source": "Sam Altman", "type": "CEO_OF", '
        '"target": "OpenAI"},]}'
        "\n```"
    )
    openai_stub.script(text(reply))
    extraction = _single(_extract(settings))
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    body = openai_stub.chat_requests[0].body
    assert "tools" not in body and "response_format" not in body


def test_unrecoverable_output_is_a_failure(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    settings = llm_settings.model_copy(update={"llm_extraction_mode": "prompt"})
    openai_stub.script(text("I cannot help with that."))
    [result] = _extract(settings)
    assert isinstance(result, ExtractionFailure) and "unparseable" in result.reason


def test_off_schema_output_is_pruned_and_counted(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    body = TEXT + " He likes pizza."
    payload = _graph(
        [("Sam Altman", "Person"), ("OpenAI", "Organization"), ("Manhattan", "Location"), ("Pizza", "Food")],
        [
            ("Sam Altman", "CEO_OF", "OpenAI"),
            ("Sam Altman", "CEO_OF", "Manhattan"),  # label pair not allowed
            ("Sam Altman", "LIKES", "OpenAI"),  # unknown type
            ("Sam Altman", "OWNS", "Pizza"),  # its endpoint had an unknown label
            ("OpenAI", "SUED", "OpenAI"),  # one entity at both ends
        ],
    )
    openai_stub.script(_reply(payload))
    extractor = LLMExtractor(llm_settings, load_schema())
    extraction = _single(extractor.extract([_chunk(body=body)]))
    schema = load_schema()
    assert [(r.source, r.type, r.target) for r in extraction.relations] == [("Sam Altman", "CEO_OF", "OpenAI")]
    assert all(schema.allows(r.source_label, r.type, r.target_label) for r in extraction.relations)
    assert {e.label for e in extraction.entities} <= set(schema.labels)
    assert "Pizza" not in {e.name for e in extraction.entities}
    assert extractor.stats.pruned_entities == {"off-schema label": 1}
    assert extractor.stats.pruned_relations == {
        "label pair not allowed": 1,
        "off-schema relationship type": 1,
        "endpoint not among the entities": 1,
        "same entity at both ends": 1,
    }
    totals = extractor.stats.totals()
    assert totals["entities dropped: off-schema label"] == 1
    assert totals["relationships dropped: label pair not allowed"] == 1


def test_names_the_chunk_does_not_contain_are_dropped_with_their_relationships(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    payload = _graph(
        [("Sam Altman", "Person"), ("OpenAI", "Organization"), ("Sky Skylark Aero", "Organization")],
        [("Sam Altman", "CEO_OF", "OpenAI"), ("Sky Skylark Aero", "SUED", "OpenAI")],
    )
    openai_stub.script(_reply(payload))
    extractor = LLMExtractor(llm_settings, load_schema())
    extraction = _single(extractor.extract([_chunk()]))
    assert {e.name for e in extraction.entities} == {"Sam Altman", "OpenAI"}
    assert [r.type for r in extraction.relations] == ["CEO_OF"]
    assert extractor.stats.pruned_entities == {"name not in the chunk": 1}
    assert extractor.stats.pruned_relations == {"endpoint not in the chunk": 1}


def test_an_alias_in_the_chunk_grounds_its_entity(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    payload = {
        "entities": [
            {"name": "Samuel H. Altman", "label": "Person", "aliases": ["Sam Altman", "Sama"]},
            {"name": "OpenAI", "label": "Organization"},
        ],
        "relationships": [{"source": "Samuel H. Altman", "type": "CEO_OF", "target": "OpenAI"}],
    }
    openai_stub.script(_reply(payload))
    extraction = _single(_extract(llm_settings))
    person = next(e for e in extraction.entities if e.label == "Person")
    assert (person.name, person.aliases) == ("Samuel H. Altman", ["Sam Altman"])  # "Sama" is not in the chunk
    assert [r.source for r in extraction.relations] == ["Samuel H. Altman"]


def test_a_name_inside_a_longer_word_is_not_grounded() -> None:
    assert occurs("Sam Altman", "said Sam  Altman.") and not occurs("Alt", "Sam Altman")


def test_timeout_then_success(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.script(slow(_reply(GOOD), delay_s=2.0), _reply(GOOD))
    extractor = LLMExtractor(llm_settings, load_schema())
    _single(extractor.extract([_chunk()]))
    assert len(openai_stub.chat_requests) == 2
    assert extractor.stats.retries == 1


def test_429_then_success_honours_retry_after(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    # the backoff is 0.01 s; a 0.3 s Retry-After must be waited for instead
    openai_stub.script(rate_limited(retry_after=0.3), server_error(502), _reply(GOOD))
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
    openai_stub.fallback = _reply(GOOD)
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
    openai_stub.fallback = _reply(GOOD)
    first = CachedExtractor(LLMExtractor(llm_settings, load_schema()), tmp_path / "cache.sqlite").extract(chunks)
    assert len(openai_stub.chat_requests) == 2
    rerun = CachedExtractor(LLMExtractor(llm_settings, load_schema()), tmp_path / "cache.sqlite")
    assert rerun.extract(chunks) == first
    assert len(openai_stub.chat_requests) == 2
    assert rerun.inner.usage.snapshot().calls == 0  # type: ignore[attr-defined]


def test_concurrency_and_usage_accounting(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = _reply(GOOD)
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


def test_braces_in_schema_descriptions_reach_the_prompt_verbatim(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    raw = load_schema().model_dump()
    raw["node_labels"]["Person"] = "A named human being, e.g. {name: 'Ada'}."
    schema = GraphSchema.model_validate(raw)
    openai_stub.script(_reply(GOOD))
    [result] = LLMExtractor(llm_settings, schema).extract([_chunk()])
    assert isinstance(result, Extraction)
    assert "{name: 'Ada'}" in openai_stub.chat_requests[0].message_text("system")


def test_stub_serves_embeddings(openai_stub: OpenAIStub) -> None:
    client = openai.OpenAI(base_url=openai_stub.base_url, api_key="k", max_retries=0)
    response = client.embeddings.create(model="stub-embed", input=["a", "b", "a"])
    vectors = [d.embedding for d in response.data]
    assert vectors[0] == vectors[2] != vectors[1]
    assert abs(sum(x * x for x in vectors[0]) - 1.0) < 1e-9


def test_evidence_the_chunk_does_not_contain_is_dropped(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    payload = _graph(
        [("Sam Altman", "Person"), ("OpenAI", "Organization")],
        [("Sam Altman", "CEO_OF", "OpenAI")],
        evidence="Altman has led OpenAI since 2019.",  # plausible, but not in the chunk
    )
    openai_stub.script(_reply(payload))
    extractor = LLMExtractor(llm_settings, load_schema())
    [rel] = _single(extractor.extract([_chunk()])).relations
    assert (rel.type, rel.evidence) == ("CEO_OF", None)
    assert extractor.stats.evidence_dropped == 1
