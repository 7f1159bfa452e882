"""The answer step of /v1/query (app/answering.py) against the stub: the deadline gives up the LLM call with a 504,
no retry starts past it, a client that disconnects cancels it, and an answer in time is the answerer's own."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import pytest
from support.openai_stub import OpenAIStub, text

from graphwire.app.answering import ClientGone, answer_within
from graphwire.app.errors import ApiError
from graphwire.core.deadline import Deadline
from graphwire.core.settings import Settings
from graphwire.retrieval.answer.llm import LLMAnswerer
from graphwire.retrieval.models import ABSTENTION, RankedChunk, RetrievalResult

QUESTION = "Who runs Brasswell Foundry?"


def _result() -> RetrievalResult:
    chunk = RankedChunk(chunk_id="c1", document_id="d1", title="t", source="s", published_at=date(2026, 1, 1),
                        text="Brasswell Foundry named Iris Calder its chief executive.")  # fmt: skip
    return RetrievalResult(question=QUESTION, mode="graph", chunks=[chunk])


def _answerer(settings: Settings, **budgets: Any) -> LLMAnswerer:
    return LLMAnswerer(settings.model_copy(update={"llm_backoff_base_s": 0.01, **budgets}))


def test_past_the_deadline_the_answer_is_a_504_and_no_retry_outlives_it(
    openai_stub: OpenAIStub, llm_settings: Settings
) -> None:
    openai_stub.fallback = text("Iris Calder [1].", delay_s=10.0)
    answerer = _answerer(llm_settings, llm_timeout_s=1.0, llm_max_retries=3)
    with pytest.raises(ApiError) as given_up:
        asyncio.run(answer_within(answerer, QUESTION, _result(), Deadline.after(1.5)))
    assert given_up.value.status == 504 and "cancelled" in given_up.value.message
    assert len(openai_stub.chat_requests) <= 2  # 1 s, then a retry cut at 1.5 s: never the 3 retries allowed


def test_an_llm_timeout_inside_the_deadline_abstains(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = text("Iris Calder [1].", delay_s=10.0)
    answerer = _answerer(llm_settings, llm_timeout_s=0.3, llm_max_retries=0)
    answer, _ = asyncio.run(answer_within(answerer, QUESTION, _result(), Deadline.after(30.0)))
    assert answer.text == ABSTENTION


def test_an_answer_in_time_is_the_answerers_own(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = text("Iris Calder [1].")
    answerer = _answerer(llm_settings)
    answer, ms = asyncio.run(answer_within(answerer, QUESTION, _result(), Deadline.after(30.0)))
    assert (answer.text, [c.chunk_id for c in answer.citations], answer.usage.llm_calls) == ("Iris Calder [1].",
                                                                                            ["c1"], 1)  # fmt: skip
    assert ms > 0


class _LeavingClient:
    """A request whose client has gone."""

    async def is_disconnected(self) -> bool:
        return True


def test_a_client_that_disconnects_cancels_the_answer(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    openai_stub.fallback = text("Iris Calder [1].", delay_s=10.0)
    answerer = _answerer(llm_settings, llm_timeout_s=20.0, llm_max_retries=0)

    async def ask() -> None:
        await answer_within(answerer, QUESTION, _result(), Deadline.after(29.0), _LeavingClient())  # type: ignore[arg-type]

    with pytest.raises(ClientGone):
        asyncio.run(ask())
