"""The answer step of POST /v1/query under the request deadline, as a task that is cancelled when given up.

`answer_within` runs the answerer in an asyncio task and waits for it until the request deadline
(REQUEST_TIMEOUT_S, shared with retrieval) or until the client disconnects, whichever comes first. A given-up task is
cancelled: the LLM answerer's call is awaited there (`LLMClient.achat`), so cancelling closes its HTTP connection and
the model server stops generating instead of working on for nobody. The deadline then answers 504; a client that left
gets nothing. Answerers without an LLM run in the thread pool (nothing to cancel: they take milliseconds).
"""

from __future__ import annotations

import asyncio
import logging
import time

import openai
from fastapi import Request
from starlette.concurrency import run_in_threadpool

from graphwire.app.errors import ApiError
from graphwire.core.deadline import Deadline
from graphwire.core.llm import RetriesExhausted, UsageSnapshot
from graphwire.retrieval.answer.llm import LLMAnswerer
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import Answer, RetrievalResult, Usage

log = logging.getLogger(__name__)
DISCONNECT_POLL_S = 0.5


class ClientGone(Exception):
    """The client disconnected before its answer was ready; the answer task was cancelled."""


async def answer_within(
    answerer: Answerer, question: str, result: RetrievalResult, deadline: Deadline, request: Request | None = None
) -> tuple[Answer, float]:
    """(answer, milliseconds it took); raises ApiError 504 past the deadline and ClientGone when the client left."""
    started = time.perf_counter()
    task = asyncio.create_task(answer_async(answerer, question, result, deadline))
    watcher = asyncio.create_task(_disconnected(request)) if request is not None else None
    waiting = {task} if watcher is None else {task, watcher}
    done, _ = await asyncio.wait(waiting, timeout=deadline.remaining(), return_when=asyncio.FIRST_COMPLETED)
    if watcher is not None:
        watcher.cancel()
    if task in done:
        return task.result(), round((time.perf_counter() - started) * 1000, 3)
    task.cancel()
    if watcher is not None and watcher in done:
        raise ClientGone
    raise _timeout(deadline)


async def answer_async(answerer: Answerer, question: str, result: RetrievalResult, deadline: Deadline) -> Answer:
    """The answer `answerer.answer` gives, with the LLM call awaited (so it can be cancelled) and bounded by
    `deadline`; an LLM that fails within the deadline makes the answerer abstain, as it does outside the API."""
    if not isinstance(answerer, LLMAnswerer):
        return await run_in_threadpool(answerer.answer, question, result)
    prompt = answerer.prompt(question, result)
    if prompt is None:
        return answerer.abstain(UsageSnapshot())
    try:
        reply = await answerer.client.achat(prompt.messages, deadline=deadline)
    except (RetriesExhausted, openai.APIError) as exc:
        if deadline.expired:
            raise _timeout(deadline) from exc
        log.warning("LLM answerer failed, abstaining: %s", exc)
        return answerer.abstain(UsageSnapshot())
    return answerer.finish(reply.text, reply.usage, prompt.excerpts)


async def _disconnected(request: Request) -> None:
    while not await request.is_disconnected():
        await asyncio.sleep(DISCONNECT_POLL_S)


def _timeout(deadline: Deadline) -> ApiError:
    message = f"the request took longer than {deadline.seconds:g} s (REQUEST_TIMEOUT_S); its LLM call was cancelled"
    return ApiError(504, "timeout", message)


def request_usage(calls: list[UsageSnapshot], answer: Answer) -> Usage:
    """What the whole request cost: every LLM call made for it (`core.llm.counting_calls`: the question's alias call
    as well as the answer), or the answer's own usage when none was counted."""
    if not calls:
        return answer.usage
    return Usage(
        llm_calls=sum(c.calls for c in calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
    )
