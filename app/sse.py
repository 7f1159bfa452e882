"""Server-Sent Events for the streaming endpoints: the wire format, the response, and the LLM streaming client."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import openai
from fastapi import Request
from fastapi.encoders import jsonable_encoder
from starlette.responses import StreamingResponse

from graphwire.core.logging import request_id_var
from graphwire.core.settings import Settings
from graphwire.retrieval.answer.streaming import streaming_client

_client_lock = threading.Lock()
# Proxies (nginx) buffer responses unless told not to; an event stream must reach the client as it is written.
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
# One Server-Sent Event, as clients (and schema checkers) parse the stream: the event name and its JSON data as text.
SSE_EVENT_SCHEMA = {
    "type": "object",
    "properties": {
        "event": {"type": "string", "description": "The event's name (retrieval, token, answer, error, ...)."},
        "data": {"type": "string", "description": "The event's payload, compact JSON (the OpenAI chunks on chat)."},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
    "required": ["data"],
}
OPENAPI_EVENT_STREAM = {
    "content": {
        "text/event-stream": {"schema": {"type": "array", "items": SSE_EVENT_SCHEMA}, "itemSchema": SSE_EVENT_SCHEMA}
    }
}


def event(name: str | None, data: Any) -> str:
    """One event: `event: <name>` (omitted when None) and `data: <compact JSON>` on one line."""
    payload = data if isinstance(data, str) else json.dumps(jsonable_encoder(data), separators=(",", ":"))
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {payload}\n\n"


def timeout_error(deadline_s: float) -> dict[str, Any]:
    """The body of the event that ends a stream whose answer ran past the request deadline."""
    message = f"the request took longer than {deadline_s:g} s (REQUEST_TIMEOUT_S); the LLM call was cancelled"
    return {"error": {"code": "timeout", "message": message, "request_id": request_id_var.get()}}


def event_stream(events: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(events, media_type="text/event-stream", headers=HEADERS)


def llm_stream_client(request: Request, settings: Settings) -> openai.AsyncOpenAI | None:
    """The app's one async LLM client (None without an LLM), created on first use."""
    if not settings.llm_configured:
        return None
    with _client_lock:
        client: openai.AsyncOpenAI | None = getattr(request.app.state, "llm_stream_client", None)
        if client is None:
            client = streaming_client(settings)
            request.app.state.llm_stream_client = client
        return client
