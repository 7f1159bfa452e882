"""Answers as a stream of text pieces, for Server-Sent Events and the OpenAI-compatible chat endpoint.

`stream_answer(answerer, question, result, client)` yields `str` pieces as the answerer produces them and ends with
the complete `Answer`, the one `answerer.answer` would have returned (exact abstention, citations, usage). The LLM
answerer streams its model's tokens over `openai.AsyncOpenAI` (`stream=True`); when the consumer stops iterating (a
client that disconnects cancels the response task), the HTTP stream to the model is closed, which ends the
generation there. Any other answerer (the extractive one) runs in a worker thread and yields its answer as one piece.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import openai
from starlette.concurrency import run_in_threadpool

from graphwire.core.llm import PLACEHOLDER_API_KEY, UsageSnapshot, require_llm
from graphwire.core.settings import Settings
from graphwire.retrieval.answer.llm import LLMAnswerer
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import Answer, RetrievalResult

log = logging.getLogger(__name__)


def streaming_client(settings: Settings) -> openai.AsyncOpenAI:
    """The async client token streaming uses (same endpoint, key and timeout as `core.llm.LLMClient`)."""
    base_url, _ = require_llm(settings)
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else PLACEHOLDER_API_KEY
    return openai.AsyncOpenAI(
        base_url=base_url, api_key=key, timeout=settings.llm_timeout_s, max_retries=settings.llm_max_retries
    )


async def stream_answer(
    answerer: Answerer, question: str, result: RetrievalResult, client: openai.AsyncOpenAI | None = None
) -> AsyncIterator[str | Answer]:
    if isinstance(answerer, LLMAnswerer) and client is not None:
        async for item in _stream_llm(answerer, question, result, client):
            yield item
        return
    answer: Answer = await run_in_threadpool(answerer.answer, question, result)
    yield answer.text
    yield answer


async def _stream_llm(
    answerer: LLMAnswerer, question: str, result: RetrievalResult, client: openai.AsyncOpenAI
) -> AsyncIterator[str | Answer]:
    prompt = answerer.prompt(question, result)
    if prompt is None:  # nothing to answer from: no model call
        abstained = answerer.abstain(UsageSnapshot())
        yield abstained.text
        yield abstained
        return
    pieces: list[str] = []
    usage = UsageSnapshot(calls=1)
    try:
        stream = await client.chat.completions.create(
            **_request(answerer, prompt.messages), stream=True, stream_options={"include_usage": True}
        )
        async with stream:  # leaving it (done, failed or cancelled) closes the HTTP stream to the model
            async for chunk in stream:
                usage = _usage(chunk, usage)
                for choice in chunk.choices:
                    if choice.delta.content:
                        pieces.append(choice.delta.content)
                        yield choice.delta.content
    except openai.APIError as exc:
        log.warning("LLM answerer stream failed, abstaining: %s", exc)
        yield answerer.abstain(UsageSnapshot())
        return
    yield answerer.finish("".join(pieces), usage, prompt.excerpts)


def _request(answerer: LLMAnswerer, messages: list[dict[str, str]]) -> dict[str, Any]:
    """The same model, temperature and token cap as the answerer's non-streaming call."""
    settings = answerer.client.settings
    request: dict[str, Any] = {"model": answerer.client.model, "messages": messages}
    request["temperature"] = settings.llm_temperature
    if settings.llm_max_tokens:
        request["max_tokens"] = settings.llm_max_tokens
    return request


def _usage(chunk: Any, current: UsageSnapshot) -> UsageSnapshot:
    tokens = getattr(chunk, "usage", None)
    if tokens is None:
        return current
    return UsageSnapshot(calls=1, prompt_tokens=tokens.prompt_tokens, completion_tokens=tokens.completion_tokens)
