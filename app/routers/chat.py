"""The OpenAI-compatible surface: GET /v1/models and POST /v1/chat/completions, streaming and not.

Any OpenAI SDK or chat front end (Open WebUI, LibreChat) can talk to graphwire: the `model` names a retrieval mode
(`graphwire-graph`, `graphwire-hybrid`, ... one per mode of GET /v1/modes), the last user message is the question,
the answer comes from the `auto` answerer (the LLM when one is configured, else extractive), and its sources are
appended to the content after a blank line:

    Quarrow Minerals supplies Brightcell Energy [1].

    Sources:
    [1] Quarrow Minerals doubles lithium refining for its biggest customer (Northgate Daily, 2024-02-20)
        "Quarrow Minerals will supply Brightcell Energy with refined lithium."

`[n]` is the cited chunk's rank among the retrieved chunks, the number the LLM answerer's inline markers use; a
source the answer rests on one sentence of (answers without an LLM: `Citation.quote`) is followed by it, quoted. The
same sources come as structured data in the extra field `citations` (non-streaming) or in the last chunk, beside the
extra fields `answer_status` (answered, abstained or llm_failed), when the LLM failed `llm_error`, and `check`: each
sentence of the answer against the retrieved evidence (the same object as /v1/query's; absent when ANSWER_CHECK is
off).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphwire.app import sse
from graphwire.app.answering import status_fields, stream_within
from graphwire.app.deps import PrincipalDep, RetrievalDep, SettingsDep
from graphwire.app.errors import ApiError
from graphwire.app.querying import QueryRequest, answerer_for, bounded, check_bounds, run_retrieval
from graphwire.core.deadline import Deadline
from graphwire.core.settings import Settings
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import Answer, Citation, RetrievalResult
from graphwire.retrieval.registry import AnswererName, mode_names

router = APIRouter(tags=["openai"])
MODEL_PREFIX = "graphwire-"
CREATED = 1_700_000_000  # a fixed "created" for the model list: the models are the code's modes


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(description="system, user, assistant or tool.")
    content: str | list[dict[str, Any]] | None = Field(default=None, description="Text, or a list of parts.")


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens, user, ...: accepted and ignored

    model: str = Field(description="graphwire-<mode>, e.g. graphwire-graph; GET /v1/models lists them.")
    messages: list[ChatMessage] = Field(min_length=1, description="The conversation; the last user message is asked.")
    stream: bool = Field(default=False, description="Answer as chat.completion.chunk Server-Sent Events.")
    stream_options: StreamOptions | None = None


class NumberedCitation(Citation):
    number: int = Field(description="The [n] of this source in the answer's Sources list.")


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = CREATED
    owned_by: str = "graphwire"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


@router.get("/models", response_model=ModelList)
def models() -> ModelList:
    """One model per retrieval mode, in the OpenAI wire format."""
    return ModelList(data=[ModelCard(id=MODEL_PREFIX + name) for name in mode_names()])


@router.post("/chat/completions", responses={200: sse.OPENAPI_EVENT_STREAM})
async def chat_completions(
    body: ChatRequest, settings: SettingsDep, retrieval: RetrievalDep, caller: PrincipalDep
) -> Any:
    """An OpenAI chat completion answered by graphwire: retrieval with the model's mode, then the auto answerer."""
    deadline = Deadline.after(settings.request_timeout_s)  # for retrieval and the answer
    query = _query(body, settings)
    question = check_bounds(query, settings)
    answerer = answerer_for(retrieval, AnswererName.AUTO)
    result: RetrievalResult = await bounded(
        settings, run_retrieval, retrieval, query.mode, question, query.top_k, caller.reader(), deadline=deadline
    )
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    answering = _Answering(answerer, question, result, deadline)
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        return sse.event_stream(_chunks(completion_id, body.model, answering, include_usage))
    try:
        answer = await answering.complete()
    except TimeoutError as exc:
        raise ApiError(504, "timeout", sse.timeout_error(deadline.seconds)["error"]["message"]) from exc
    numbered = numbered_citations(answer, result)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.text + sources(numbered)},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": _usage(answer),
        "citations": numbered,
        **status_fields(answer),
    }  # fmt: skip


def _query(body: ChatRequest, settings: Settings) -> QueryRequest:
    """The /v1/query request the chat asks for, validated as that route validates it (a 422, never a 500)."""
    question, mode = _question(body), _mode(body.model)
    try:
        return QueryRequest(question=question, mode=mode, top_k=min(10, settings.max_top_k))
    except ValidationError as exc:
        reasons = "; ".join(str(error["msg"]) for error in exc.errors())
        raise ApiError(422, "validation_error", f"the user message is not a valid question: {reasons}") from exc


def _mode(model: str) -> str:
    mode = model.removeprefix(MODEL_PREFIX)
    if not model.startswith(MODEL_PREFIX) or mode not in mode_names():
        known = [MODEL_PREFIX + name for name in mode_names()]
        raise ApiError(404, "model_not_found", f"unknown model {model!r}; GET /v1/models lists them", {"models": known})
    return mode


def _question(body: ChatRequest) -> str:
    for message in reversed(body.messages):
        if message.role == "user":
            text = _text(message.content)
            if text.strip():
                return text
    raise ApiError(422, "validation_error", "the messages hold no user message with text")


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if part.get("type") == "text")
    return content or ""


@dataclass(frozen=True)
class _Answering:
    """One answer to produce before `deadline`; past it the LLM stream is cancelled."""

    answerer: Answerer
    question: str
    result: RetrievalResult
    deadline: Deadline

    def stream(self) -> AsyncIterator[str | Answer]:
        """The answer's pieces, then the Answer; raises TimeoutError past the deadline."""
        return stream_within(self.answerer, self.question, self.result, self.deadline)

    async def complete(self) -> Answer:
        answer: Answer | None = None
        async for item in self.stream():
            if isinstance(item, Answer):
                answer = item
        assert answer is not None
        return answer


def numbered_citations(answer: Answer, result: RetrievalResult) -> list[NumberedCitation]:
    """Each citation with its [n]: the chunk's rank among the retrieved chunks (the LLM's excerpt number)."""
    ranks: dict[str, int] = {}
    for chunk in result.chunks:
        ranks.setdefault(chunk.chunk_id, len(ranks) + 1)
    numbered, extra = [], len(ranks)
    for citation in answer.citations:
        if citation.chunk_id not in ranks:
            extra += 1
            ranks[citation.chunk_id] = extra
        numbered.append(NumberedCitation(**citation.model_dump(), number=ranks[citation.chunk_id]))
    return numbered


def sources(citations: list[NumberedCitation]) -> str:
    """The Sources block appended to the answer ("" when nothing is cited)."""
    if not citations:
        return ""
    lines = []
    for c in citations:
        where = ", ".join(part for part in (c.publication, c.published_at and c.published_at.isoformat()) if part)
        at = f", {c.locator}" if c.locator else ""
        lines.append(f"[{c.number}] {c.title}{at}" + (f" ({where})" if where else ""))
        if c.quote:  # the sentence the answer rests on
            lines.append(f'    "{c.quote}"')
    return "\n\nSources:\n" + "\n".join(lines)


def _usage(answer: Answer) -> dict[str, int]:
    prompt, completion = answer.usage.prompt_tokens, answer.usage.completion_tokens
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


async def _chunks(completion_id: str, model: str, answering: _Answering, include_usage: bool) -> AsyncIterator[str]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [choice], **extra}  # fmt: skip
        return sse.event(None, body)

    yield chunk({"role": "assistant", "content": ""})
    answer: Answer | None = None
    try:
        async for item in answering.stream():
            if isinstance(item, str):
                yield chunk({"content": item})
            else:
                answer = item
    except TimeoutError:  # an `error` payload: OpenAI SDKs raise it as an APIError
        yield sse.event(None, sse.timeout_error(answering.deadline.seconds))
        return
    assert answer is not None
    numbered = numbered_citations(answer, answering.result)
    if numbered:
        yield chunk({"content": sources(numbered)})
    yield chunk({}, "stop", citations=numbered, **status_fields(answer))
    if include_usage:
        yield sse.event(None, {"id": completion_id, "object": "chat.completion.chunk", "created": created,
                               "model": model, "choices": [], "usage": _usage(answer)})  # fmt: skip
    yield sse.event(None, "[DONE]")
