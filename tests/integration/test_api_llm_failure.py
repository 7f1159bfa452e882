"""An LLM that fails while answering is visible in every API response, never a silent abstention: /v1/query (JSON and
the event stream's `answer` event) and /v1/chat/completions (streamed and not) say `answer_status: llm_failed` with
`llm_error`, and keep the abstention as the answer (200). The chains corpus in real Neo4j, the stub as the LLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.openai_stub import MODEL, OpenAIStub, StubReply, server_error, text
from support.sse import sse_events

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.models import ABSTENTION

pytestmark = pytest.mark.integration
QUESTION = "Which company supplies the supplier of Kestrel Motors?"
FAILURE = "InternalServerError (HTTP 503) after 2 attempts"


def _failing_answers(request: dict[str, Any]) -> StubReply:
    """Alias calls (they ask for structured output) succeed; answer calls, streamed or not, get a 503."""
    if "response_format" in request:
        return text('{"entities": []}')(request)
    return server_error(503)


@pytest.fixture
def client(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> Iterator[TestClient]:
    openai_stub.fallback = _failing_answers
    settings = neo4j_settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "llm_base_url": openai_stub.base_url, "llm_model": MODEL,
                "llm_max_retries": 1, "llm_backoff_base_s": 0.01, "graph_fill_mode": "none"}
    )  # fmt: skip
    with TestClient(create_app(settings)) as client:
        yield client


def test_query_says_the_llm_failed(client: TestClient) -> None:
    response = client.post("/v1/query", json={"question": QUESTION, "mode": "graph", "answerer": "llm"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["answer"], body["abstained"], body["answer_status"]) == (ABSTENTION, True, "llm_failed")
    assert body["llm_error"] == FAILURE

    with client.stream("POST", "/v1/query", json={"question": QUESTION, "mode": "graph", "stream": True}) as streamed:
        events = list(sse_events(streamed.iter_lines()))
    name, answer = events[-1]
    assert name == "answer" and (answer["answer"], answer["answer_status"]) == (ABSTENTION, "llm_failed")
    assert answer["llm_error"] == FAILURE and "token" not in [n for n, _ in events]


def test_query_without_a_failure_says_nothing_of_one(client: TestClient, openai_stub: OpenAIStub) -> None:
    body = {"question": QUESTION, "mode": "graph", "answerer": "extractive"}
    answered = client.post("/v1/query", json=body).json()
    assert answered["answer_status"] == "answered" and "llm_error" not in answered
    openai_stub.fallback = lambda request: text('{"entities": []}' if "response_format" in request else
                                                "Insufficient information.")(request)  # fmt: skip
    abstained = client.post("/v1/query", json={**body, "answerer": "llm"}).json()
    assert abstained["answer_status"] == "abstained" and "llm_error" not in abstained


def test_chat_completions_say_the_llm_failed(client: TestClient) -> None:
    request = {"model": "graphwire-graph", "messages": [{"role": "user", "content": QUESTION}]}
    completion = client.post("/v1/chat/completions", json=request)
    assert completion.status_code == 200, completion.text
    body = completion.json()
    assert body["choices"][0]["message"]["content"] == ABSTENTION and body["choices"][0]["finish_reason"] == "stop"
    assert (body["answer_status"], body["llm_error"]) == ("llm_failed", FAILURE)

    with client.stream("POST", "/v1/chat/completions", json={**request, "stream": True}) as streamed:
        chunks = [data for _, data in sse_events(streamed.iter_lines())]
    last = next(c for c in chunks if c != "[DONE]" and c["choices"] and c["choices"][0]["finish_reason"])
    assert (last["answer_status"], last["llm_error"]) == ("llm_failed", FAILURE) and chunks[-1] == "[DONE]"
