"""The running API with real clients: the official `openai` SDK against /v1/models and /v1/chat/completions
(streaming and not), Server-Sent Events from /v1/query, LLM tokens streamed as the model produces them, and a client
that disconnects cancelling the model's stream. The chains corpus in real Neo4j; the LLM is the OpenAI stub."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from support.api_process import ApiProcess, settings_env
from support.openai_stub import MODEL, OpenAIStub, StubReply, text
from support.sse import sse_events

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings

pytestmark = pytest.mark.integration
QUESTION = "Which company supplies the supplier of Kestrel Motors?"
SOURCE_TITLE = "Quarrow Minerals doubles lithium refining for its biggest customer"
DEADLINE_S = 12


@pytest.fixture(scope="module")
def api(
    chains_graph: Graph, neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ApiProcess]:
    """The API without an LLM: the extractive answerer."""
    folder = tmp_path_factory.mktemp("api-openai")
    settings = neo4j_settings.model_copy(update={"chroma_path": folder / "chroma", "ingest_state_path": folder / "s"})
    with ApiProcess(settings_env(settings), folder / "api.log") as api:
        yield api


def test_the_openai_sdk_lists_models_and_gets_a_cited_answer(api: ApiProcess) -> None:
    client = openai.OpenAI(base_url=f"{api.url}/v1", api_key="unused", max_retries=0)
    models = [m.id for m in client.models.list()]
    assert {"graphwire-graph", "graphwire-hybrid", "graphwire-ppr"} <= set(models)

    messages: Any = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}]
    completion = client.chat.completions.create(model="graphwire-graph", messages=messages)
    content = completion.choices[0].message.content or ""
    answer, _, sources = content.partition("\n\nSources:\n")
    assert answer == "Quarrow Minerals" and completion.choices[0].finish_reason == "stop"
    assert sources.startswith("[") and f"] {SOURCE_TITLE} (Northgate Daily, 2024-02-20)" in sources
    citations = (completion.model_extra or {})["citations"]
    assert citations[0]["title"] == SOURCE_TITLE and f"[{citations[0]['number']}] {SOURCE_TITLE}" in sources
    assert completion.usage is not None and completion.usage.total_tokens == 0  # extractive: no LLM tokens

    stream = client.chat.completions.create(
        model="graphwire-graph", messages=messages, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == content
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].choices == []

    with pytest.raises(openai.NotFoundError, match="unknown model"):
        client.chat.completions.create(model="gpt-4o", messages=messages)
    with pytest.raises(openai.UnprocessableEntityError, match="no user message"):
        client.chat.completions.create(model="graphwire-graph", messages=[{"role": "system", "content": "hi"}])


def test_query_streams_server_sent_events(api: ApiProcess) -> None:
    body = {"question": QUESTION, "answerer": "extractive", "stream": True}
    with httpx.stream("POST", f"{api.url}/v1/query", json=body, timeout=30) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        events = list(sse_events(response.iter_lines()))
    assert [name for name, _ in events] == ["retrieval", "token", "answer"]
    retrieval, token, answer = (data for _, data in events)
    assert any(f["subject"] == "Quarrow Minerals" for f in retrieval["facts"]) and retrieval["entities"]
    assert {"graph.aliases", "graph.matching", "graph.templates", "total"} <= set(retrieval["timings_ms"])
    assert [c["chunk_id"] for c in retrieval["citations"]] == [c["chunk_id"] for c in retrieval["chunks"]]
    assert answer_cited(retrieval, events[-1][1])
    assert token == {"text": "Quarrow Minerals"} and answer["answer"] == "Quarrow Minerals"
    assert answer["citations"][0]["title"] == SOURCE_TITLE and answer["usage"]["llm_calls"] == 0
    assert {"answer", "request"} <= set(answer["timings_ms"])
    bad = httpx.post(f"{api.url}/v1/query", json={**body, "mode": "telepathy"}, timeout=30)
    assert bad.status_code == 422  # errors before the stream starts keep their status


def answer_cited(retrieval: dict[str, Any], answer: dict[str, Any]) -> bool:
    """The answer cites only sources the retrieval event announced."""
    announced = {c["chunk_id"] for c in retrieval["citations"]}
    return bool(answer["citations"]) and {c["chunk_id"] for c in answer["citations"]} <= announced


def _llm_replies(answer: str, stream_delay_s: float) -> Any:
    """Stage 1's alias call gets no aliases; the answer call (streamed) gets `answer`, one word per chunk."""

    def respond(request: dict[str, Any]) -> StubReply:
        if request.get("stream"):
            return text(answer, stream_delay_s=stream_delay_s)(request)
        return text('{"entities": []}')(request)

    return respond


@pytest.fixture(scope="module")
def llm_api(
    chains_graph: Graph,
    neo4j_settings: Settings,
    _openai_stub_server: OpenAIStub,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ApiProcess]:
    """The API with the stub as its LLM and a DEADLINE_S request deadline."""
    folder = tmp_path_factory.mktemp("api-llm")
    settings = neo4j_settings.model_copy(update={"chroma_path": folder / "chroma", "ingest_state_path": folder})
    env = settings_env(settings, LLM_BASE_URL=_openai_stub_server.base_url, LLM_MODEL=MODEL, LLM_API_KEY="k",
                       REQUEST_TIMEOUT_S=str(DEADLINE_S), LLM_TIMEOUT_S="8")  # fmt: skip
    with ApiProcess(env, folder / "api.log") as api:
        yield api


def test_llm_tokens_stream_as_produced_and_a_disconnect_cancels_the_model(
    llm_api: ApiProcess, openai_stub: OpenAIStub
) -> None:
    openai_stub.fallback = _llm_replies("Quarrow Minerals supplies Brightcell Energy [1].", 0.0)
    body = {"question": QUESTION, "stream": True}
    with httpx.stream("POST", f"{llm_api.url}/v1/query", json=body, timeout=30) as response:
        events = list(sse_events(response.iter_lines()))
    tokens = [data["text"] for name, data in events if name == "token"]
    assert len(tokens) == 6 and "".join(tokens) == "Quarrow Minerals supplies Brightcell Energy [1]."
    retrieval, answer = events[0][1], events[-1][1]
    assert answer["answerer"] == f"llm:{MODEL}"
    assert [c["chunk_id"] for c in answer["citations"]] == [retrieval["chunks"][0]["chunk_id"]]  # [1]: excerpt 1
    assert answer["usage"]["llm_calls"] == 1 and answer["usage"]["completion_tokens"] > 0

    words = " ".join(f"word{i}" for i in range(40))
    openai_stub.fallback = _llm_replies(words, 0.1)  # 40 chunks, 4 s in all
    with httpx.stream("POST", f"{llm_api.url}/v1/query", json=body, timeout=30) as response:
        for name, _ in sse_events(response.iter_lines()):
            if name == "token":
                break  # the client hangs up after the first token
    streamed = [r for r in openai_stub.chat_requests if r.body.get("stream")][-1]
    deadline = time.monotonic() + 10
    while not streamed.stream_aborted and time.monotonic() < deadline:
        time.sleep(0.05)
    assert streamed.stream_aborted and streamed.stream_chunks_sent < 40  # the model's stream was closed early


def test_an_answer_past_the_request_deadline_ends_the_stream_with_an_error_and_cancels_the_model(
    llm_api: ApiProcess, openai_stub: OpenAIStub
) -> None:
    openai_stub.fallback = _llm_replies(" ".join(f"word{i}" for i in range(40)), 1.0)  # 40 s, past the deadline
    body = {"question": QUESTION, "stream": True}
    with httpx.stream("POST", f"{llm_api.url}/v1/query", json=body, timeout=30) as response:
        events = list(sse_events(response.iter_lines()))
    name, data = events[-1]
    assert name == "error" and data["error"]["code"] == "timeout" and "REQUEST_TIMEOUT_S" in data["error"]["message"]
    assert "answer" not in [n for n, _ in events] and any(n == "token" for n, _ in events)
    streamed = [r for r in openai_stub.chat_requests if r.body.get("stream")][-1]
    deadline = time.monotonic() + 10
    while not streamed.stream_aborted and time.monotonic() < deadline:
        time.sleep(0.05)
    assert streamed.stream_aborted and streamed.stream_chunks_sent < 40

    client = openai.OpenAI(base_url=f"{llm_api.url}/v1", api_key="unused", max_retries=0)
    with pytest.raises(openai.APIError, match="REQUEST_TIMEOUT_S"):
        list(client.chat.completions.create(
            model="graphwire-graph", messages=[{"role": "user", "content": QUESTION}], stream=True
        ))  # fmt: skip
