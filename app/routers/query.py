"""POST /v1/query (retrieve, then answer) and POST /v1/retrieve (retrieve only), for every registered mode."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Request, Response

from graphwire.app import sse
from graphwire.app.answering import ClientGone
from graphwire.app.deps import PrincipalDep, RetrievalDep, SettingsDep
from graphwire.app.query_models import ModesResponse, QueryResponse, RetrieveResponse, retrieve_payload
from graphwire.app.querying import (
    QueryRequest,
    RetrieveRequest,
    answer_query,
    answerer_for,
    bounded,
    check_bounds,
    retrieve_only,
    run_retrieval,
)
from graphwire.app.streaming import stream_query
from graphwire.core.deadline import Deadline
from graphwire.retrieval.registry import AnswererName, mode_names

router = APIRouter(tags=["query"])


@router.get("/modes", response_model=ModesResponse)
def modes() -> ModesResponse:
    """The retrieval modes and answerers this server knows."""
    return ModesResponse(modes=mode_names(), answerers=[a.value for a in AnswererName])


@router.post("/retrieve", response_model=RetrieveResponse, response_model_exclude_none=True)
async def retrieve(
    body: RetrieveRequest, settings: SettingsDep, retrieval: RetrievalDep, caller: PrincipalDep
) -> dict[str, Any]:
    """Stages 1-4 only: matched entities, KEY/BRIDGE/DIRECT facts and ranked chunks, with per-stage timings; only
    chunks of documents the caller may read."""
    return await retrieve_only(body, settings, retrieval, caller.reader())


@router.post(
    "/query", response_model=QueryResponse, response_model_exclude_none=True, responses={200: sse.OPENAPI_EVENT_STREAM}
)
async def query(
    body: QueryRequest, request: Request, settings: SettingsDep, retrieval: RetrievalDep, caller: PrincipalDep
) -> Any:
    """Retrieve, then answer with the chosen answerer, from documents the caller may read; abstains with exactly
    "Insufficient information."."""
    if not body.stream:
        try:
            return await answer_query(body, settings, retrieval, caller.reader(), request)
        except ClientGone:
            return Response(status_code=499)  # nobody reads it; the LLM call is already cancelled
    # app/streaming.py: retrieval first (errors keep their status), then the answer as events
    question = check_bounds(body, settings)
    answerer = answerer_for(retrieval, body.answerer)
    started = time.perf_counter()
    deadline = Deadline.after(settings.request_timeout_s)  # one deadline for retrieval and the answer
    result = await bounded(
        settings, run_retrieval, retrieval, body.mode, question, body.top_k, caller.reader(), deadline=deadline
    )
    payload = retrieve_payload(question, result, body.include_context)
    return stream_query(payload, result, answerer, started, deadline)
