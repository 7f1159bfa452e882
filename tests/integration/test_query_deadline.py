"""POST /v1/query under one deadline (REQUEST_TIMEOUT_S) for retrieval and the LLM answer, on the chains corpus in
real Neo4j with the OpenAI-compatible stub as the LLM: an LLM that fails inside the deadline makes the answerer
abstain (200, answer_status llm_failed); an answer inside it is served, its usage counting the alias call too. The
504 past the deadline is tests/unit/test_answer_deadline.py (no retrieval time to race against)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.openai_stub import MODEL, OpenAIStub, StubReply, text

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.models import ABSTENTION

pytestmark = pytest.mark.integration
QUESTION = "Which company supplies the supplier of Kestrel Motors?"
SLOW_S = 30.0


def _slow_answers(request: dict[str, Any]) -> StubReply:
    """Alias calls (they ask for structured output) answer at once; answer calls take SLOW_S."""
    if "response_format" in request:
        return text('{"entities": [{"name": "Kestrel Motors", "aliases": []}]}')(request)
    return text("Quarrow Minerals [1].", delay_s=SLOW_S)(request)


def _client(neo4j_settings: Settings, stub: OpenAIStub, tmp: Path, **overrides: Any) -> TestClient:
    """The API on the chains graph, graph mode without the vector fill (no embedder to load: retrieval stays short)."""
    settings = neo4j_settings.model_copy(
        update={"chroma_path": tmp / "chroma", "llm_base_url": stub.base_url, "llm_model": MODEL,
                "llm_max_retries": 0, "graph_fill_mode": "none"} | overrides
    )  # fmt: skip
    return TestClient(create_app(settings))


def test_an_llm_timeout_inside_the_deadline_abstains(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    openai_stub.fallback = _slow_answers
    with _client(neo4j_settings, openai_stub, tmp_path, llm_timeout_s=0.5, request_timeout_s=30.0) as client:
        response = client.post("/v1/query", json={"question": QUESTION, "answerer": "llm"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["answer"], body["abstained"], body["answer_status"]) == (ABSTENTION, True, "llm_failed")
    assert body["llm_error"] == "APITimeoutError after 1 attempt"


def test_an_llm_answer_inside_the_deadline_is_served(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    openai_stub.fallback = lambda request: text('{"entities": []}' if "response_format" in request else
                                                "Quarrow Minerals [1].")(request)  # fmt: skip
    with _client(neo4j_settings, openai_stub, tmp_path) as client:
        response = client.post("/v1/query", json={"question": QUESTION, "answerer": "llm"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answer"] == "Quarrow Minerals [1]." and body["citations"]
    assert body["usage"]["llm_calls"] == 2  # the question's alias call counts as well as the answer
    assert body["usage"]["prompt_tokens"] == sum(r.usage["prompt_tokens"] for r in openai_stub.chat_requests if r.usage)
    assert "answer" in body["timings_ms"]
