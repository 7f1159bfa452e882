"""The query-side LLM paths on the chains corpus in real Neo4j: LLM aliases feed stage 1, the LLM answerer cites."""

from __future__ import annotations

import json

import pytest
from support.openai_stub import OpenAIStub, text

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.aliases.llm import LLMAliasExtractor
from graphwire.retrieval.answer.llm import LLMAnswerer
from graphwire.retrieval.graph import GraphRetriever
from graphwire.retrieval.models import ABSTENTION, FactTier
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration

QUESTION = "Which company supplies the supplier of KM?"


def test_llm_aliases_find_what_the_question_abbreviates(
    chains_graph: Graph, openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    without = GraphRetriever(chains_graph, schema=load_schema()).retrieve(QUESTION, top_k=10)
    assert "Kestrel Motors" not in {e.name for e in without.entities}

    openai_stub.script(text(json.dumps({"entities": [{"name": "Kestrel Motors", "aliases": ["KM"]}]})))
    retriever = GraphRetriever(chains_graph, llm_aliases=LLMAliasExtractor(llm_settings), schema=load_schema())
    result = retriever.retrieve(QUESTION, top_k=10)
    assert "Kestrel Motors" in {e.name for e in result.entities}
    direct = {(f.subject, f.relationship, f.object) for f in result.facts if f.tier is FactTier.DIRECT}
    assert ("Quarrow Minerals", "SUPPLIES", "Brightcell Energy") in direct
    assert QUESTION in openai_stub.chat_requests[0].message_text("user")

    # the answerer sees those facts and excerpts, and its [n] markers become citations
    openai_stub.script(text("Quarrow Minerals [1]."))
    answer = LLMAnswerer(llm_settings).answer(QUESTION, result)
    assert answer.text == "Quarrow Minerals [1]." and answer.usage.llm_calls == 1
    assert [c.chunk_id for c in answer.citations] == [result.chunks[0].chunk_id]
    prompt = openai_stub.chat_requests[-1].message_text("user")
    assert "[DIRECT] Quarrow Minerals (Organization) -[SUPPLIES]-> Brightcell Energy (Organization)" in prompt
    assert result.chunks[0].title in prompt


def test_no_match_abstains_without_an_answer_call(
    chains_graph: Graph, openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    openai_stub.script(text('{"entities": [{"name": "Pellucid Robotics", "aliases": []}]}'))
    question = "Who is the chief executive of Pellucid Robotics?"
    result = GraphRetriever(chains_graph, llm_aliases=LLMAliasExtractor(llm_settings), schema=load_schema()).retrieve(
        question, top_k=10
    )
    answer = LLMAnswerer(llm_settings).answer(question, result)
    assert answer.text == ABSTENTION and answer.citations == []
    assert len(openai_stub.chat_requests) == 1  # the alias call only
