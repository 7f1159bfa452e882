"""What the query routes share (`/v1/query`, `/v1/retrieve`, `/v1/chat/completions`) and the MCP tools `ask` and
`retrieve` call: the request models, the bounds check, the deadline around blocking work, one retrieval, the
context's answerers, and a whole retrieval or question answered into its response body. Routers import this module,
never each other."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictInt, StrictStr
from starlette.concurrency import run_in_threadpool

from graphwire.app.answering import answer_fields, answer_within, request_usage
from graphwire.app.errors import ApiError
from graphwire.app.limits import enforce, setting_limit
from graphwire.app.observability import label_mode, observe_retrieval
from graphwire.app.query_models import retrieve_payload
from graphwire.core import tracing
from graphwire.core.access import Reader
from graphwire.core.clients.llm_usage import counting_calls
from graphwire.core.deadline import Deadline
from graphwire.core.settings import Settings
from graphwire.retrieval.access import retrieve_as
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import RetrievalResult
from graphwire.retrieval.registry import DEFAULT_MODE, AnswererName, ModeName, RetrievalContext, UnknownModeError

RETRIEVE_EXAMPLE: dict[str, JsonValue] = {
    "question": "Which company supplies the supplier of Kestrel Motors?",
    "mode": "joint",
    "top_k": 5,
}


class RetrieveRequest(BaseModel):
    """Types are strict (`top_k: "5"` or `true` is a 422); the length and top_k bounds are the server's settings
    (MAX_QUESTION_CHARS, MAX_TOP_K), published as such in the OpenAPI schema (app/limits.py)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [RETRIEVE_EXAMPLE]})

    question: StrictStr = Field(
        min_length=1,
        description="The question, in plain text (at most MAX_QUESTION_CHARS characters).",
        json_schema_extra=setting_limit("maxLength", "max_question_chars"),
    )
    mode: ModeName = Field(default=DEFAULT_MODE, description="A retrieval mode; GET /v1/modes describes them.")
    top_k: StrictInt = Field(
        default=10,
        ge=1,
        description="Chunks to return (at most MAX_TOP_K).",
        json_schema_extra=setting_limit("maximum", "max_top_k"),
    )
    include_context: StrictBool = Field(default=False, description="Return chunk texts and fact evidence as well.")


class QueryRequest(RetrieveRequest):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{**RETRIEVE_EXAMPLE, "answerer": "extractive", "include_context": True}]}
    )

    answerer: AnswererName = Field(default=AnswererName.AUTO, description="auto: the LLM when configured.")
    stream: StrictBool = Field(
        default=False, description="Answer as Server-Sent Events: retrieval, token (as generated), answer events."
    )


def answerer_for(retrieval: RetrievalContext, name: AnswererName) -> Answerer:
    """The context's answerer `name` (built once per process), or a 422 naming what it needs."""
    try:
        return retrieval.answerer(name)
    except UnknownModeError as exc:
        raise ApiError(422, "validation_error", str(exc)) from exc


def check_bounds(body: RetrieveRequest, settings: Settings) -> str:
    """The settings' limits (the same the OpenAPI schema publishes), counted on the question without surrounding
    whitespace, which is what is asked."""
    question = body.question.strip()
    enforce(body.model_copy(update={"question": question}), settings)
    if not question:
        raise ApiError(422, "validation_error", "question must not be blank")
    return question


async def bounded(settings: Settings, fn: Any, *args: Any, deadline: Deadline | None = None) -> Any:
    """Run blocking work in the thread pool, answering 504 when it passes `deadline` (default: REQUEST_TIMEOUT_S)."""
    deadline = deadline or Deadline.after(settings.request_timeout_s)
    try:
        return await asyncio.wait_for(run_in_threadpool(fn, *args), timeout=deadline.remaining())
    except TimeoutError as exc:
        raise ApiError(504, "timeout", f"the request took longer than {settings.request_timeout_s:g} s") from exc


def run_retrieval(retrieval: RetrievalContext, mode: str, question: str, top_k: int, reader: Reader) -> RetrievalResult:
    """`mode`'s retrieval of `question` as `reader` may see it (retrieval/access.py)."""
    label_mode(mode)
    try:
        retrieval.retriever(mode)
    except UnknownModeError as exc:
        raise ApiError(422, "validation_error", str(exc)) from exc
    with tracing.span("retrieve", {"graphwire.mode": mode, "graphwire.top_k": top_k}):
        result = retrieve_as(retrieval, mode, question, top_k, reader)
    observe_retrieval(mode, result.timings_ms)
    return result


async def retrieve_only(
    body: RetrieveRequest, settings: Settings, retrieval: RetrievalContext, reader: Reader
) -> dict[str, Any]:
    """The body of POST /v1/retrieve (`RetrieveResponse`): the question's retrieval in `body.mode`, no answer, as
    `reader` may see it."""
    question = check_bounds(body, settings)
    result: RetrievalResult = await bounded(settings, run_retrieval, retrieval, body.mode, question, body.top_k, reader)
    return retrieve_payload(question, result, body.include_context)


async def answer_query(
    body: QueryRequest,
    settings: Settings,
    retrieval: RetrievalContext,
    reader: Reader,
    request: Request | None = None,
) -> dict[str, Any]:
    """The body of a POST /v1/query that is not streamed (`QueryResponse`): retrieval and answer under one deadline
    (REQUEST_TIMEOUT_S; the answer's LLM call is cancelled when it passes, app/answering.py). Raises `ClientGone`
    when `request`'s client disconnected before the answer was ready."""
    question = check_bounds(body, settings)
    answerer = answerer_for(retrieval, body.answerer)
    started = time.perf_counter()
    deadline = Deadline.after(settings.request_timeout_s)
    with counting_calls() as llm_calls:  # the alias call too, not only the answer's
        result = await bounded(
            settings, run_retrieval, retrieval, body.mode, question, body.top_k, reader, deadline=deadline
        )
        answer, answer_ms = await answer_within(answerer, question, result, deadline, request)
    payload = retrieve_payload(question, result, body.include_context)
    payload["timings_ms"]["answer"] = answer_ms
    payload["timings_ms"]["request"] = round((time.perf_counter() - started) * 1000, 3)
    payload.update(answer_fields(answer), citations=answer.citations, usage=request_usage(llm_calls, answer))
    return payload
