"""The answer step of the API under the request deadline: awaited (`answer_within`, POST /v1/query) or streamed
(`stream_within`, its event stream and the chat completions), through the `Answerer` protocol only.

`answer_within` runs `answerer.aanswer` in an asyncio task and waits for it until the request deadline
(REQUEST_TIMEOUT_S, shared with retrieval) or until the client disconnects, whichever comes first. A given-up task is
cancelled: the LLM answerer's call is awaited there (`LLMClient.achat`), so cancelling closes its HTTP connection and
the model server stops generating instead of working on for nobody. The deadline then answers 504; a client that left
gets nothing. `stream_within` is the same for `answerer.astream`: past the deadline it raises TimeoutError and the
stream to the model is closed; a client that disconnects cancels the response, which closes it too.

An LLM that fails inside the deadline gives the answerer's abstention with `llm_error` (a 200 that says so); one that
fails because the deadline passed is the deadline's error.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request

from graphwire.app.errors import ApiError
from graphwire.app.observability import observe_answer
from graphwire.core import tracing
from graphwire.core.clients.llm_usage import UsageSnapshot
from graphwire.core.deadline import Deadline
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import Answer, AnswerStatus, RetrievalResult, Usage

DISCONNECT_POLL_S = 0.5


class ClientGone(Exception):
    """The client disconnected before its answer was ready; the answer task was cancelled."""


async def answer_within(
    answerer: Answerer, question: str, result: RetrievalResult, deadline: Deadline, request: Request | None = None
) -> tuple[Answer, float]:
    """(answer, milliseconds it took); raises ApiError 504 past the deadline and ClientGone when the client left."""
    with tracing.span("answer", {"graphwire.answerer": answerer.name}) as span:  # the LLM call's span is its child
        answer, elapsed_ms = await _answer_within(answerer, question, result, deadline, request)
        span.set_attribute("graphwire.answer_status", answer.status.value)
        return answer, elapsed_ms


async def _answer_within(
    answerer: Answerer, question: str, result: RetrievalResult, deadline: Deadline, request: Request | None
) -> tuple[Answer, float]:
    started = time.perf_counter()
    task = asyncio.create_task(answerer.aanswer(question, result, deadline))
    watcher = asyncio.create_task(_disconnected(request)) if request is not None else None
    waiting = {task} if watcher is None else {task, watcher}
    try:
        done, _ = await asyncio.wait(waiting, timeout=deadline.remaining(), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:  # the caller gave up (an MCP client cancelled the call): so does the answer
        for pending in waiting:
            pending.cancel()
        raise
    if watcher is not None:
        watcher.cancel()
    if task in done:
        answer = task.result()
        if _failed_for_lack_of_time(answer, deadline):
            raise timeout_error(deadline)
        observe_answer(answer)
        return answer, round((time.perf_counter() - started) * 1000, 3)
    task.cancel()
    if watcher is not None and watcher in done:
        raise ClientGone
    raise timeout_error(deadline)


async def stream_within(
    answerer: Answerer, question: str, result: RetrievalResult, deadline: Deadline
) -> AsyncIterator[str | Answer]:
    """`answerer.astream` bounded by `deadline`: the answer's pieces, then the Answer; raises TimeoutError past it."""
    async with asyncio.timeout(deadline.remaining()):
        async for item in answerer.astream(question, result, deadline):
            if isinstance(item, Answer):
                if _failed_for_lack_of_time(item, deadline):
                    raise TimeoutError
                observe_answer(item)
            yield item


def _failed_for_lack_of_time(answer: Answer, deadline: Deadline) -> bool:
    """The LLM call failed because the deadline passed (its last attempt was cut short by it): a timeout, not an
    LLM failure."""
    return answer.status is AnswerStatus.LLM_FAILED and deadline.expired


async def _disconnected(request: Request) -> None:
    while not await request.is_disconnected():
        await asyncio.sleep(DISCONNECT_POLL_S)


def timeout_error(deadline: Deadline) -> ApiError:
    message = f"the request took longer than {deadline.seconds:g} s (REQUEST_TIMEOUT_S); its LLM call was cancelled"
    return ApiError(504, "timeout", message)


def answer_fields(answer: Answer) -> dict[str, Any]:
    """What /v1/query says of an answer beyond its citations and usage (its JSON body and its `answer` event)."""
    return {"answer": answer.text, "answerer": answer.answerer, "abstained": answer.abstained, **status_fields(answer)}


def status_fields(answer: Answer) -> dict[str, Any]:
    """How the answer came about, for every API response: `answer_status`, `answer_kind`, `llm_error` when the LLM
    failed, and `check` (each sentence against the evidence, `retrieval.answer.checking`) unless ANSWER_CHECK is off."""
    fields: dict[str, Any] = {"answer_status": answer.status, "answer_kind": answer.answer_kind}
    if answer.llm_error is not None:
        fields["llm_error"] = answer.llm_error
    if answer.check is not None:
        fields["check"] = answer.check
    return fields


def request_usage(calls: list[UsageSnapshot], answer: Answer) -> Usage:
    """What the whole request cost: every LLM call made for it (`core.llm_usage.counting_calls`: the question's alias
    call as well as the answer), or the answer's own usage when none was counted."""
    if not calls:
        return answer.usage
    return Usage(
        llm_calls=sum(c.calls for c in calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
    )
