"""POST /v1/query with `"stream": true`: the answer as Server-Sent Events.

    event: retrieval  data: what /v1/retrieve returns (entities, facts, chunks, analysis, timings_ms), and `citations`:
                      the retrieved chunks as sources the answer may cite (chunk_id, title, publication, published_at)
    event: token      data: {"text": "..."}  one per piece, as the LLM produces it (the extractive answerer: one)
    event: answer     data: {"answer", "answerer", "abstained", "answer_status", "answer_kind", "llm_error"?, "check"?,
                             "citations", "usage", "timings_ms"}
                      (`llm_error` only when the LLM failed: answer_status "llm_failed")

The answer check (`check`: per sentence its score, `supported`, evidence chunks and sentences, what is missing; the
answer's score and `unsupported` count) comes in the `answer` event, after the last token: it is computed on the
complete answer. It is absent when ANSWER_CHECK is off. With ANSWER_DROP_UNSUPPORTED the tokens are held back and the
checked text (flagged sentences removed) comes as one `token` event, so the streamed text is the answer's.

    event: error      data: {"error": {"code": "timeout", "message"}}  instead of `answer` past REQUEST_TIMEOUT_S

Retrieval runs before the response starts, so its errors keep their status codes (422, 503, 504). A client that
disconnects, or the deadline passing, cancels the answer, which closes the stream to the LLM
(`app.answering.stream_within` over the answerer's `astream`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import StreamingResponse

from graphwire.app import sse
from graphwire.app.answering import answer_fields, stream_within
from graphwire.core.deadline import Deadline
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import Answer, Citation, RetrievalResult


def stream_query(
    retrieve_payload: dict[str, Any], result: RetrievalResult, answerer: Answerer, started: float, deadline: Deadline
) -> StreamingResponse:
    """`started`: when the request began (perf_counter); `deadline`: when its answer must be complete."""
    return sse.event_stream(_events(retrieve_payload, result, answerer, started, deadline))


async def _events(
    payload: dict[str, Any], result: RetrievalResult, answerer: Answerer, started: float, deadline: Deadline
) -> AsyncIterator[str]:
    yield sse.event("retrieval", {**payload, "citations": _candidates(result)})
    answer_started = time.perf_counter()
    answer: Answer | None = None
    try:
        async for item in stream_within(answerer, payload["question"], result, deadline):
            if isinstance(item, str):
                yield sse.event("token", {"text": item})
            else:
                answer = item
    except TimeoutError:
        yield sse.event("error", sse.timeout_error(deadline.seconds))
        return
    assert answer is not None  # astream always ends with the Answer
    timings = {**payload["timings_ms"], "answer": _ms_since(answer_started), "request": _ms_since(started)}
    yield sse.event("answer", {**answer_fields(answer), "citations": answer.citations, "usage": answer.usage,
                               "timings_ms": timings})  # fmt: skip


def _candidates(result: RetrievalResult) -> list[Citation]:
    """Every retrieved chunk once, best first, in the shape of a citation (the answer event says which it cited)."""
    sources: dict[str, Citation] = {}
    for c in result.chunks:
        sources.setdefault(c.chunk_id, Citation.of(c))
    return list(sources.values())


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
