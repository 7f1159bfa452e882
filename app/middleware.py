"""Request ids and the access log, as plain ASGI middleware (no buffering, works with streaming responses)."""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphwire.app.errors import error_response
from graphwire.core.logging import request_id_var

log = logging.getLogger("graphwire.access")

REQUEST_ID_HEADER = "X-Request-ID"
# A caller's id is echoed only if it is short and plain, so it cannot inject anything into headers or logs.
_VALID_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            candidate = value.decode("latin-1").strip()
            return candidate if _VALID_ID.match(candidate) else None
    return None


class RequestContextMiddleware:
    """Adopt or create the request id, echo it as X-Request-ID, log one line per request, turn crashes into 500s."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_id(scope) or uuid.uuid4().hex
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"x-request-id"]
                message = {**message, "headers": [*headers, (b"x-request-id", request_id.encode("latin-1"))]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception("unhandled error", extra={"method": scope["method"], "path": scope["path"]})
            if response_started:
                raise
            response = error_response(500, "internal_error", "internal server error")
            await response(scope, receive, send_with_id)
        finally:
            elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
            log.info(
                "request",
                extra={"method": scope["method"], "path": scope["path"], "status": status, "duration_ms": elapsed_ms},
            )
            request_id_var.reset(token)
