"""POST /v1/query (retrieve, then answer) and POST /v1/retrieve (retrieve only), for every registered mode."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.deps import ChromaProviderDep, GraphProviderDep, SettingsDep
from app.errors import ApiError
from core.settings import Settings
from retrieval.base import Answerer
from retrieval.models import Answer, Citation, Fact, MatchTier, RankedChunk, RetrievalResult, Usage
from retrieval.registry import (
    AnswererName,
    RetrievalContext,
    RetrieverPool,
    UnknownModeError,
    build_answerer,
    mode_names,
)

router = APIRouter(tags=["query"])
_state_lock = threading.Lock()
# Hard ceilings independent of settings, so a bad body is rejected before any work.
QUESTION_HARD_LIMIT = 20_000
TOP_K_HARD_LIMIT = 1_000


class RetrieveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=QUESTION_HARD_LIMIT, description="The question, in plain text.")
    mode: str = Field(default="graph", description="A retrieval mode; GET /v1/modes lists them.")
    top_k: int = Field(default=10, ge=1, le=TOP_K_HARD_LIMIT, description="Chunks to return (at most MAX_TOP_K).")
    include_context: bool = Field(default=False, description="Return chunk texts and fact evidence as well.")


class QueryRequest(RetrieveRequest):
    answerer: AnswererName = Field(default=AnswererName.AUTO, description="auto: the LLM when configured.")


class EntityOut(BaseModel):
    mention: str
    node: str
    key: str
    label: str
    tier: MatchTier
    score: float


class FactOut(BaseModel):
    tier: str
    subject: str
    subject_label: str
    relationship: str
    object: str
    object_label: str
    chunk_ids: list[str]
    score: float
    evidence: list[str] | None = None

    @classmethod
    def of(cls, fact: Fact, include_context: bool) -> FactOut:
        return cls(
            **fact.model_dump(include={"subject", "subject_label", "relationship", "object", "object_label",
                                       "chunk_ids", "score"}),
            tier=fact.tier.value,
            evidence=fact.evidence if include_context else None,
        )  # fmt: skip


class ChunkOut(BaseModel):
    chunk_id: str
    document_id: str
    title: str
    publication: str | None = None
    published_at: date | None = None
    score: float
    text: str | None = None

    @classmethod
    def of(cls, chunk: RankedChunk, include_context: bool) -> ChunkOut:
        return cls(
            **chunk.model_dump(include={"chunk_id", "document_id", "title", "published_at", "score"}),
            publication=chunk.source,
            text=chunk.text if include_context else None,
        )


class RetrieveResponse(BaseModel):
    question: str
    mode: str
    entities: list[EntityOut]
    facts: list[FactOut]
    chunks: list[ChunkOut]
    timings_ms: dict[str, float]
    details: dict[str, Any] = Field(default_factory=dict)


class QueryResponse(RetrieveResponse):
    answer: str
    answerer: str
    abstained: bool
    citations: list[Citation]
    usage: Usage


class ModesResponse(BaseModel):
    modes: list[str]
    answerers: list[str]


async def get_pool(
    request: Request, settings: SettingsDep, graphs: GraphProviderDep, chroma: ChromaProviderDep
) -> RetrieverPool:
    """One pool per app (retrievers keep caches between requests), created on first use (no I/O: runs inline)."""
    state = request.app.state
    with _state_lock:
        pool: RetrieverPool | None = getattr(state, "retriever_pool", None)
        if pool is None:
            pool = RetrieverPool(RetrievalContext(settings, graph=graphs.get, chroma=chroma.get))
            state.retriever_pool = pool
            state.answerers = {}
    return pool


PoolDep = Annotated[RetrieverPool, Depends(get_pool)]


def _answerer(request: Request, settings: Settings, name: AnswererName) -> Answerer:
    cache: dict[str, Answerer] = request.app.state.answerers
    with _state_lock:
        if name.value not in cache:
            try:
                cache[name.value] = build_answerer(name, settings)
            except UnknownModeError as exc:
                raise ApiError(422, "validation_error", str(exc)) from exc
        return cache[name.value]


def _check_bounds(body: RetrieveRequest, settings: Settings) -> str:
    question = body.question.strip()
    if not question:
        raise ApiError(422, "validation_error", "question must not be blank")
    if len(question) > settings.max_question_chars:
        raise ApiError(
            422,
            "validation_error",
            f"question is {len(question)} characters; the limit is {settings.max_question_chars}",
        )
    if body.top_k > settings.max_top_k:
        raise ApiError(422, "validation_error", f"top_k is {body.top_k}; the limit is {settings.max_top_k}")
    if body.mode not in mode_names():
        raise ApiError(422, "validation_error", f"unknown mode {body.mode!r}", {"modes": mode_names()})
    return question


async def _bounded(settings: Settings, fn: Any, *args: Any) -> Any:
    """Run blocking work in the thread pool, answering 504 when it exceeds REQUEST_TIMEOUT_S."""
    try:
        return await asyncio.wait_for(run_in_threadpool(fn, *args), timeout=settings.request_timeout_s)
    except TimeoutError as exc:
        raise ApiError(504, "timeout", f"the request took longer than {settings.request_timeout_s:g} s") from exc


def _retrieve(pool: RetrieverPool, mode: str, question: str, top_k: int) -> RetrievalResult:
    try:
        retriever = pool.get(mode)
    except UnknownModeError as exc:
        raise ApiError(422, "validation_error", str(exc)) from exc
    return retriever.retrieve(question, top_k=top_k)


def _retrieve_response(question: str, result: RetrievalResult, include_context: bool) -> dict[str, Any]:
    details = dict(result.details)
    if not include_context:
        details.pop("excerpts", None)
    return {
        "question": question,
        "mode": result.mode,
        "entities": [
            EntityOut(mention=e.mention, node=e.name, key=e.key, label=e.label, tier=e.tier, score=e.score)
            for e in result.entities
        ],
        "facts": [FactOut.of(f, include_context) for f in result.facts],
        "chunks": [ChunkOut.of(c, include_context) for c in result.chunks],
        "timings_ms": dict(result.timings_ms),
        "details": details,
    }


@router.get("/modes", response_model=ModesResponse)
def modes() -> ModesResponse:
    """The retrieval modes and answerers this server knows."""
    return ModesResponse(modes=mode_names(), answerers=[a.value for a in AnswererName])


@router.post("/retrieve", response_model=RetrieveResponse, response_model_exclude_none=True)
async def retrieve(body: RetrieveRequest, settings: SettingsDep, pool: PoolDep) -> dict[str, Any]:
    """Stages 1-4 only: matched entities, KEY/BRIDGE/DIRECT facts and ranked chunks, with per-stage timings."""
    question = _check_bounds(body, settings)
    result: RetrievalResult = await _bounded(settings, _retrieve, pool, body.mode, question, body.top_k)
    return _retrieve_response(question, result, body.include_context)


def _retrieve_and_answer(
    pool: RetrieverPool, answerer: Answerer, body: QueryRequest, question: str
) -> tuple[RetrievalResult, Answer, float]:
    result = _retrieve(pool, body.mode, question, body.top_k)
    started = time.perf_counter()
    answer = answerer.answer(question, result)
    return result, answer, round((time.perf_counter() - started) * 1000, 3)


@router.post("/query", response_model=QueryResponse, response_model_exclude_none=True)
async def query(body: QueryRequest, request: Request, settings: SettingsDep, pool: PoolDep) -> dict[str, Any]:
    """Retrieve, then answer with the chosen answerer; abstains with exactly "Insufficient information."."""
    question = _check_bounds(body, settings)
    answerer = _answerer(request, settings, body.answerer)
    started = time.perf_counter()
    result, answer, answer_ms = await _bounded(settings, _retrieve_and_answer, pool, answerer, body, question)
    payload = _retrieve_response(question, result, body.include_context)
    payload["timings_ms"]["answer"] = answer_ms
    payload["timings_ms"]["request"] = round((time.perf_counter() - started) * 1000, 3)
    payload.update(
        answer=answer.text,
        answerer=answer.answerer,
        abstained=answer.abstained,
        citations=answer.citations,
        usage=answer.usage,
    )
    return payload
