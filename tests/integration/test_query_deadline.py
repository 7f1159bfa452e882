"""POST /v1/query under one deadline (REQUEST_TIMEOUT_S) for retrieval and the LLM answer, on the chains corpus in
real Neo4j with the OpenAI-compatible stub as the LLM: past the deadline a 504 and the answer call given up; an LLM
that fails inside the deadline makes the answerer abstain (200)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.openai_stub import MODEL, OpenAIStub, StubReply, text

from graphwire.app.main import create_app
from graphwire.core.graph import Graph
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


def test_past_the_deadline_the_query_is_a_504_and_its_llm_call_is_given_up(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    openai_stub.fallback = _slow_answers
    # an attempt may take 8 s, and a retry is allowed: only the 12 s deadline ends the answer call
    budgets = {"llm_timeout_s": 8.0, "request_timeout_s": 12.0, "llm_max_retries": 1, "llm_backoff_base_s": 0.01}
    with _client(neo4j_settings, openai_stub, tmp_path, **budgets) as client:
        assert client.post("/v1/retrieve", json={"question": QUESTION}).status_code == 200  # warm the caches
        response = client.post("/v1/query", json={"question": QUESTION, "answerer": "llm"})
    assert response.status_code == 504, response.text
    error = response.json()["error"]
    assert error["code"] == "timeout" and "REQUEST_TIMEOUT_S" in error["message"] and "cancelled" in error["message"]
    answer_calls = [r for r in openai_stub.chat_requests if "response_format" not in r.body]
    assert 1 <= len(answer_calls) <= 2  # no attempt started past the deadline


def test_an_llm_timeout_inside_the_deadline_abstains(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    openai_stub.fallback = _slow_answers
    with _client(neo4j_settings, openai_stub, tmp_path, llm_timeout_s=0.5, request_timeout_s=30.0) as client:
        response = client.post("/v1/query", json={"question": QUESTION, "answerer": "llm"})
    assert response.status_code == 200, response.text
    assert (response.json()["answer"], response.json()["abstained"]) == (ABSTENTION, True)


def test_an_llm_answer_inside_the_deadline_is_served(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    openai_stub.fallback = lambda request: text('{"entities": []}' if "response_format" in request else
                                                "Quarrow Minerals [1].")(request)  # fmt: skip
    with _client(neo4j_settings, openai_stub, tmp_path) as client:
        response = client.post("/v1/query", json={"question": QUESTION, "answerer": "llm"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answer"] == "Quarrow Minerals [1]." and body["usage"]["llm_calls"] == 1 and body["citations"]
    assert "answer" in body["timings_ms"]
