"""Server-Sent Events for the streaming endpoints: the wire format and the response."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi.encoders import jsonable_encoder
from starlette.responses import StreamingResponse

from graphwire.core.logging import request_id_var

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
