"""Answer checking through the API: the stub LLM answers with one sentence the retrieved evidence holds and one planted
sentence it does not; /v1/query (JSON and its event stream) and /v1/chat/completions flag exactly the planted one,
and with ANSWER_DROP_UNSUPPORTED it is gone from the answer. The chains corpus in real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.openai_stub import MODEL, OpenAIStub, StubReply, text
from support.sse import sse_events

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings

pytestmark = pytest.mark.integration
QUESTION = "Which company supplies the supplier of Kestrel Motors?"
SUPPORTED = "Quarrow Minerals supplies refined lithium to Brightcell Energy [1]."
PLANTED = "Quarrow Minerals also owns a copper mine in Chile, bought in 2019 [1]."  # in no chains article


def _answers(request: dict[str, Any]) -> StubReply:
    """Alias calls (they ask for structured output) find nothing; answer calls, streamed or not, get the answer."""
    if "response_format" in request:
        return text('{"entities": []}')(request)
    return text(f"{SUPPORTED} {PLANTED}")(request)


def _client(settings: Settings, openai_stub: OpenAIStub, tmp_path: Path, drop: bool) -> TestClient:
    openai_stub.fallback = _answers
    return TestClient(create_app(settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "llm_base_url": openai_stub.base_url, "llm_model": MODEL,
                "llm_max_retries": 0, "graph_fill_mode": "none", "answer_drop_unsupported": drop}
    )))  # fmt: skip


@pytest.fixture
def client(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> Iterator[TestClient]:
    with _client(neo4j_settings, openai_stub, tmp_path, drop=False) as client:
        yield client


def _flags(check: dict[str, Any]) -> list[tuple[str, bool]]:
    return [(s["text"], s["supported"]) for s in check["sentences"]]


def test_query_flags_exactly_the_planted_sentence(client: TestClient) -> None:
    request = {"question": QUESTION, "mode": "graph", "answerer": "llm"}
    body = client.post("/v1/query", json=request).json()
    assert body["answer"] == f"{SUPPORTED} {PLANTED}"
    check = body["check"]
    assert _flags(check) == [(SUPPORTED, True), (PLANTED, False)] and check["unsupported"] == 1
    supported, planted = check["sentences"]
    quarrow = next(c["chunk_id"] for c in body["chunks"] if c["title"].startswith("Quarrow Minerals"))
    assert supported["chunk_ids"] == [quarrow] and supported["evidence"][0].startswith("Quarrow Minerals supplies")
    assert {"Chile", "2019"} <= set(planted["missing"]) and planted["score"] < supported["score"] == 1.0
    assert check["score"] == pytest.approx((supported["score"] + planted["score"]) / 2, abs=1e-3)

    with client.stream("POST", "/v1/query", json={**request, "stream": True}) as streamed:
        events = list(sse_events(streamed.iter_lines()))
    name, answer = events[-1]
    assert name == "answer" and _flags(answer["check"]) == _flags(check)  # the check arrives with the answer event
    assert "".join(data["text"] for n, data in events if n == "token") == body["answer"]


def test_chat_completions_carry_the_check(client: TestClient) -> None:
    request = {"model": "graphwire-graph", "messages": [{"role": "user", "content": QUESTION}]}
    completion = client.post("/v1/chat/completions", json=request).json()
    assert _flags(completion["check"]) == [(SUPPORTED, True), (PLANTED, False)]

    with client.stream("POST", "/v1/chat/completions", json={**request, "stream": True}) as streamed:
        chunks = [data for _, data in sse_events(streamed.iter_lines())]
    last = next(c for c in chunks if c != "[DONE]" and c["choices"] and c["choices"][0]["finish_reason"])
    assert _flags(last["check"]) == _flags(completion["check"])


def test_answer_drop_unsupported_removes_the_planted_sentence(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    with _client(neo4j_settings, openai_stub, tmp_path, drop=True) as client:
        request = {"question": QUESTION, "mode": "graph", "answerer": "llm"}
        body = client.post("/v1/query", json=request).json()
        assert body["answer"] == SUPPORTED and len(body["citations"]) == 1
        assert (body["check"]["unsupported"], body["check"]["dropped"]) == (1, 1)
        with client.stream("POST", "/v1/query", json={**request, "stream": True}) as streamed:
            events = list(sse_events(streamed.iter_lines()))
        assert [data["text"] for n, data in events if n == "token"] == [SUPPORTED]
        assert events[-1][1]["answer"] == SUPPORTED
