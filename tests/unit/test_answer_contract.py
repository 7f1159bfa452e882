"""The one answerer contract (retrieval/base.py): `answer`, `aanswer` and `astream` give the same Answer, for the LLM
answerer against the stub and for the extractive one; streaming goes through `LLMClient` (one retry policy, the SDK's
own retries off, retried only while opening the stream); an LLM that fails says so in the Answer."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from datetime import date

import pytest
from support.openai_stub import OpenAIStub, server_error, text

from graphwire.app.answering import stream_within
from graphwire.core.clients.llm import ChatReply, LLMClient
from graphwire.core.clients.llm_usage import counting_calls
from graphwire.core.deadline import Deadline
from graphwire.core.settings import Settings
from graphwire.retrieval.answer.extractive import ExtractiveAnswerer
from graphwire.retrieval.answer.llm import LLMAnswerer
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import ABSTENTION, Answer, AnswerStatus, RankedChunk, RetrievalResult
from graphwire.schema.model import load_schema

QUESTION = "Who runs Brasswell Foundry?"
REPLY = "Iris Calder runs it [1]."


def _result() -> RetrievalResult:
    chunk = RankedChunk(chunk_id="c1", document_id="d1", title="t", source="s", published_at=date(2026, 1, 1),
                        text="Brasswell Foundry named Iris Calder its chief executive.")  # fmt: skip
    return RetrievalResult(mode="graph", chunks=[chunk])


async def _streamed(answerer: Answerer, result: RetrievalResult) -> tuple[list[str], Answer]:
    items = [item async for item in answerer.astream(QUESTION, result, Deadline.after(30.0))]
    pieces, last = items[:-1], items[-1]
    assert all(isinstance(p, str) for p in pieces) and isinstance(last, Answer)
    return [str(p) for p in pieces], last


def _three_ways(answerer: Answerer, result: RetrievalResult) -> tuple[Answer, Answer, list[str], Answer]:
    blocking = answerer.answer(QUESTION, result)
    awaited = asyncio.run(answerer.aanswer(QUESTION, result, Deadline.after(30.0)))
    pieces, streamed = asyncio.run(_streamed(answerer, result))
    return blocking, awaited, pieces, streamed


def test_the_llm_answerer_gives_one_answer_three_ways(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = text(REPLY)
    blocking, awaited, pieces, streamed = _three_ways(LLMAnswerer(llm_settings), _result())
    assert blocking == awaited == streamed and blocking.status is AnswerStatus.ANSWERED
    assert "".join(pieces) == REPLY and len(pieces) == 5  # the stub streams one word per chunk
    assert [c.chunk_id for c in streamed.citations] == ["c1"] and streamed.usage.completion_tokens > 0
    blocking_request, _, streamed_request = openai_stub.chat_requests
    assert streamed_request.body["stream"] is True
    for key in ("model", "temperature", "max_tokens"):  # the same request, streamed or not
        assert streamed_request.body[key] == blocking_request.body[key]
    assert streamed_request.messages[0] == blocking_request.messages[0]  # the user message's nonce differs


def test_the_extractive_answerer_gives_one_answer_three_ways() -> None:
    blocking, awaited, pieces, streamed = _three_ways(ExtractiveAnswerer(schema=load_schema()), _result())
    assert blocking == awaited == streamed and pieces == [blocking.text]
    assert blocking.status is AnswerStatus.ABSTAINED and blocking.llm_error is None  # no entities: abstains


def test_an_llm_that_fails_says_so_three_ways(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = server_error(503)
    blocking, awaited, pieces, streamed = _three_ways(LLMAnswerer(llm_settings), _result())
    assert blocking == awaited == streamed and pieces == []
    assert (streamed.text, streamed.abstained, streamed.status) == (ABSTENTION, True, AnswerStatus.LLM_FAILED)
    assert streamed.llm_error == "InternalServerError (HTTP 503) after 4 attempts"  # LLM_MAX_RETRIES=3
    assert len(openai_stub.chat_requests) == 3 * 4
    assert streamed.model_dump(mode="json")["status"] == "llm_failed"


def test_a_stream_is_retried_by_the_policy_alone_before_its_first_token(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    openai_stub.script(server_error(500), text(REPLY))
    _, answer = asyncio.run(_streamed(LLMAnswerer(llm_settings), _result()))
    assert answer.text == REPLY and answer.usage.llm_calls == 1
    assert [r.body.get("stream") for r in openai_stub.chat_requests] == [True, True]

    openai_stub.reset()
    openai_stub.fallback = server_error(500)
    no_retries = llm_settings.model_copy(update={"llm_max_retries": 0})
    _, failed = asyncio.run(_streamed(LLMAnswerer(no_retries), _result()))
    assert failed.status is AnswerStatus.LLM_FAILED
    assert len(openai_stub.chat_requests) == 1  # the SDK retries nothing of its own


def test_a_stream_counts_its_usage_like_any_call(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.script(server_error(500), text(REPLY))
    client = LLMClient(llm_settings)

    async def consume() -> ChatReply:
        items = [item async for item in client.astream([{"role": "user", "content": QUESTION}])]
        assert isinstance(items[-1], ChatReply)
        return items[-1]

    with counting_calls() as calls:
        reply = asyncio.run(consume())
    prompt, completion = openai_stub.reported_usage()
    assert (reply.text, reply.attempts, reply.finish_reason) == (REPLY, 2, "stop")
    assert (reply.usage.calls, reply.usage.failed_calls) == (1, 1)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (prompt, completion)
    assert calls == [reply.usage] and client.usage.snapshot() == reply.usage


def test_a_stream_past_the_deadline_is_a_timeout_and_closes_the_model_stream(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    openai_stub.fallback = text(" ".join(f"word{i}" for i in range(40)), stream_delay_s=0.1)
    answerer = LLMAnswerer(llm_settings.model_copy(update={"llm_timeout_s": 5.0}))

    async def consume() -> list[str | Answer]:
        return [item async for item in stream_within(answerer, QUESTION, _result(), Deadline.after(0.8))]

    with pytest.raises(TimeoutError):
        asyncio.run(consume())
    streamed = openai_stub.chat_requests[-1]
    for _ in range(100):
        if streamed.stream_aborted:
            break
        asyncio.run(asyncio.sleep(0.05))
    assert streamed.stream_aborted and streamed.stream_chunks_sent < 40


def _cut_stream(listener: socket.socket) -> None:
    """Answer one request with a chunked event stream that breaks off inside its second chunk."""
    conn, _ = listener.accept()
    with conn:
        conn.recv(65536)
        delta = {"index": 0, "delta": {"content": "Iris "}, "finish_reason": None}
        chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [delta]}
        event = f"data: {json.dumps(chunk)}\n\n".encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        conn.sendall(f"{len(event):x}\r\n".encode() + event + b"\r\n40\r\ndata")


def test_a_stream_cut_midway_ends_in_the_abstention_that_says_so(llm_settings: Settings) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        threading.Thread(target=_cut_stream, args=(listener,), daemon=True).start()
        base_url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        answerer = LLMAnswerer(llm_settings.model_copy(update={"llm_base_url": base_url, "llm_max_retries": 0}))
        pieces, answer = asyncio.run(_streamed(answerer, _result()))
    assert pieces == ["Iris "]  # out before the cut: not retried, not taken back
    assert (answer.text, answer.status, answer.llm_error) == (
        ABSTENTION,
        AnswerStatus.LLM_FAILED,
        "APIConnectionError after 1 attempt",
    )
