"""LangChainExtractor with LangChain's fake chat models: the transformer's output mapped to the graph's extractions,
restricted to the schema and grounded in the chunk by the same checks as the built-in extractor, cached, counted."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import CachedExtractor
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.extractors.langchain_graph import EVIDENCE, LangChainExtractor, chat_model
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.models import Extraction
from graphwire.ingest.service import ExtractorChoice, build_extractor
from graphwire.schema.model import load_schema

TEXT = "Sam Altman, the CEO of OpenAI, said OpenAI was sued by The New York Times in Manhattan."
SCHEMA = load_schema()


def _settings(tmp_path: Path) -> Settings:
    return Settings(
        llm_base_url="http://127.0.0.1:9/v1", llm_model="tiny", extraction_cache_path=tmp_path / "cache.sqlite"
    )


def _chunk(cid: str = "c1", text: str = TEXT) -> Chunk:
    return Chunk(id=cid, document_id="d1", index=0, text=text, title="t")


class ToolCallingFake(GenericFakeChatModel):
    """A fake that 'calls' the structured-output tool, as ChatOpenAI does: the transformer takes its function path."""

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        return self


def _tool_reply(relationships: list[tuple[str, str, str, str, str, str]], tokens: tuple[int, int]) -> AIMessage:
    """One DynamicGraph call: (source, source type, type, target, target type, evidence) per relationship."""
    rels = [
        {"source_node_id": s, "source_node_type": st, "type": t, "target_node_id": o, "target_node_type": ot,
         "properties": [{"key": EVIDENCE, "value": e}] if e else None}
        for s, st, t, o, ot, e in relationships
    ]  # fmt: skip
    nodes = [{"id": r["source_node_id"], "type": r["source_node_type"]} for r in rels]
    args = {"nodes": nodes, "relationships": rels}
    usage = {"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens)}
    return AIMessage(content="", tool_calls=[{"name": "DynamicGraph", "args": args, "id": "call-1"}],
                     usage_metadata=usage)  # fmt: skip


def test_function_path_keeps_grounded_schema_valid_relationships_with_their_evidence(tmp_path: Path) -> None:
    reply = _tool_reply(
        [
            ("sam altman", "Person", "CEO_OF", "OPENAI", "Organization", "Sam Altman, the CEO of OpenAI"),
            ("The New York Times", "Publication", "SUED", "OpenAI", "Organization", "a sentence it never wrote"),
            ("Sam Altman", "Person", "LOCATED_IN", "Manhattan", "Location", ""),  # pair the schema does not allow
            ("Sam Altman", "Person", "MARRIED", "OpenAI", "Organization", ""),  # type outside the schema
            ("Ada Park", "Person", "WORKS_FOR", "OpenAI", "Organization", ""),  # a name the chunk does not hold
        ],
        tokens=(900, 120),
    )
    extractor = LangChainExtractor(_settings(tmp_path), SCHEMA, llm=ToolCallingFake(messages=iter([reply])))
    [result] = extractor.extract([_chunk()])

    assert isinstance(result, Extraction)
    assert result.chunk_id == "c1" and result.extractor == "langchain:tiny"
    assert {(e.name, e.label) for e in result.entities} == {
        ("Sam Altman", "Person"), ("OpenAI", "Organization"), ("The New York Times", "Publication"),
        ("Manhattan", "Location"),
    }  # fmt: skip  # spelled as in the chunk, though the transformer title-cases names ("Openai")
    kept = {(r.source, r.type, r.target): r.evidence for r in result.relations}
    assert kept == {("Sam Altman", "CEO_OF", "OpenAI"): "Sam Altman, the CEO of OpenAI"}
    stats = extractor.stats
    assert stats.chunks == 1 and stats.failed == 0
    assert stats.pruned_relations == {
        "label pair not allowed": 2,  # Publication SUED Organization, Person LOCATED_IN Location
        "off-schema relationship type": 1,
        "endpoint not in the chunk": 1,
    }
    assert stats.pruned_entities == {"name not in the chunk": 2}  # Ada Park, as a node and as an end
    usage = extractor.usage.snapshot()
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (1, 900, 120)


def test_evidence_the_chunk_does_not_contain_is_dropped_and_the_relationship_kept(tmp_path: Path) -> None:
    reply = _tool_reply([("Sam Altman", "Person", "CEO_OF", "OpenAI", "Organization", "Altman founded a bakery")],
                        tokens=(10, 5))  # fmt: skip
    extractor = LangChainExtractor(_settings(tmp_path), SCHEMA, llm=ToolCallingFake(messages=iter([reply])))
    [result] = extractor.extract([_chunk()])
    assert isinstance(result, Extraction)
    assert [(r.type, r.evidence) for r in result.relations] == [("CEO_OF", None)]
    assert extractor.stats.evidence_dropped == 1


def test_prompt_path_of_a_model_without_tools_is_checked_the_same_way(tmp_path: Path) -> None:
    reply = json.dumps([
        {"head": "OpenAI", "head_type": "Organization", "relation": "LOCATED_IN", "tail": "Manhattan",
         "tail_type": "Location"},
        {"head": "The New York Times", "head_type": "Company", "relation": "SUED", "tail": "OpenAI",
         "tail_type": "Organization"},
    ])  # fmt: skip
    llm = FakeListChatModel(responses=[reply])
    extractor = LangChainExtractor(_settings(tmp_path), SCHEMA, llm=llm)
    [result] = extractor.extract([_chunk()])
    assert isinstance(result, Extraction)
    assert [(r.source, r.type, r.target, r.evidence) for r in result.relations] == [
        ("OpenAI", "LOCATED_IN", "Manhattan", None)
    ]
    assert extractor.stats.pruned_entities == {"off-schema label": 2}  # "Company", as a node and as an end
    assert extractor.stats.pruned_relations == {"endpoint not among the entities": 1}


class Unreachable(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "unreachable"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise ConnectionError("connection refused")


def test_a_model_error_fails_its_chunk_with_the_reason_and_is_counted(tmp_path: Path) -> None:
    extractor = LangChainExtractor(_settings(tmp_path), SCHEMA, llm=Unreachable())
    [result] = extractor.extract([_chunk()])
    assert isinstance(result, ExtractionFailure)
    assert result.chunk_id == "c1" and "connection refused" in result.reason
    assert extractor.stats.failed == 1 and extractor.usage.snapshot().failed_calls == 1


def test_results_are_cached_by_the_extractor_name_and_version(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    first = _tool_reply([("Sam Altman", "Person", "CEO_OF", "OpenAI", "Organization", "")], tokens=(10, 5))
    cached = CachedExtractor(
        LangChainExtractor(settings, SCHEMA, llm=ToolCallingFake(messages=iter([first]))),
        settings.extraction_cache_path,
    )
    [result] = cached.extract([_chunk()])
    assert isinstance(result, Extraction) and result.relations
    again = LangChainExtractor(settings, SCHEMA, llm=ToolCallingFake(messages=iter([])))
    rerun = CachedExtractor(again, settings.extraction_cache_path)
    assert rerun.extract([_chunk("c2")]) == [result.model_copy(update={"chunk_id": "c2"})]
    assert again.usage.snapshot().calls == 0 and rerun.stats.hits == 1


def test_the_ingest_door_builds_it_over_chatopenai_at_the_configured_endpoint(tmp_path: Path) -> None:
    settings = _settings(tmp_path).model_copy(update={"llm_max_retries": 2, "llm_timeout_s": 40.0})
    extractor = build_extractor(ExtractorChoice.LANGCHAIN, settings, SCHEMA, Gazetteer.from_sources([], schema=SCHEMA))
    assert isinstance(extractor, CachedExtractor) and isinstance(extractor.inner, LangChainExtractor)
    assert extractor.name == "langchain:tiny" and extractor.schema_fingerprint == SCHEMA.fingerprint
    llm = chat_model(settings)
    assert isinstance(llm, ChatOpenAI)
    assert (llm.openai_api_base, llm.model_name, llm.max_retries, llm.request_timeout) == (
        "http://127.0.0.1:9/v1",
        "tiny",
        2,
        40.0,
    )
