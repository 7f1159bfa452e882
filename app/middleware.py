"""Plain ASGI middleware (no buffering, works with streaming responses): request ids and the access log, the API key
of /v1 routes and of the MCP endpoint /mcp checked before any body is read, and request body size limits."""

from __future__ import annotations

import logging
import re
import time
import uuid

from fastapi import HTTPException
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphwire.app.auth.authenticate import PRINCIPAL_SCOPE_KEY, Authenticator, AuthFailure
from graphwire.app.deps import UNAUTHORIZED_MESSAGE
from graphwire.app.errors import error_response
from graphwire.core import tracing, workspaces
from graphwire.core.auth.models import Principal
from graphwire.core.logging import request_id_var
from graphwire.core.settings import Settings

log = logging.getLogger("graphwire.access")

REQUEST_ID_HEADER = "X-Request-ID"
METRICS_PATH = "/metrics"  # app/observability.py serves it
V1_PREFIX = "/v1"
MCP_PATH = "/mcp"  # the MCP server's streamable HTTP transport (app/mcp/http.py)
WORKSPACE_HEADER = b"x-graphwire-workspace"  # the workspace a request reads and writes (docs/security.md)
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
        # without a caller's id, a traced request's id is its trace id: logs, X-Request-ID and the trace agree
        request_id = _incoming_id(scope) or _trace_id() or uuid.uuid4().hex
        tracing.annotate({"graphwire.request_id": request_id})
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


def _trace_id() -> str | None:
    ids = tracing.current_ids()
    return ids[0] if ids is not None else None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _bearer(scope: Scope) -> str | None:
    scheme, _, token = (_header(scope, b"authorization") or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def is_guarded(path: str) -> bool:
    """What the API key protects: every /v1 route, the MCP endpoint and the metrics."""
    return path == METRICS_PATH or any(path == p or path.startswith(p + "/") for p in (V1_PREFIX, MCP_PATH))


class ApiKeyMiddleware:
    """A /v1, /mcp or /metrics request whose credentials do not authenticate (`Authenticator`, by AUTH_MODE) is
    answered 401 before anything reads its body (a malformed body from a caller without a key is a 401, not a 422).
    Covers every /v1 route, whoever adds it, and every MCP message over HTTP. The caller, once known, is left in the
    scope (`PRINCIPAL_SCOPE_KEY`) for the role checks of the routes (app/deps.py) and the MCP tools."""

    def __init__(self, app: ASGIApp, authenticator: Authenticator) -> None:
        self.app = app
        self.authenticator = authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and is_guarded(scope["path"]):
            workspace, refusal = self._workspace(scope)
            if refusal is not None:
                await error_response(422, "invalid_workspace", refusal)(scope, receive, send)
                return
            try:
                principal = await self._authenticate(scope)
            except AuthFailure as failure:
                message = UNAUTHORIZED_MESSAGE + (f": {failure.public}" if failure.public else "")
                await error_response(401, "unauthorized", message)(scope, receive, send)
                return
            scope[PRINCIPAL_SCOPE_KEY] = principal.acting_in(workspace)
        await self.app(scope, receive, send)

    def _workspace(self, scope: Scope) -> tuple[str, str | None]:
        """The workspace the request names (`X-Graphwire-Workspace`, else the served one), or why it cannot be used."""
        served = self.authenticator.workspace
        named = _header(scope, WORKSPACE_HEADER)
        if named is None or named == served:
            return served, None
        try:
            workspaces.checked(named)
        except workspaces.WorkspaceNameError as exc:
            return served, str(exc)
        return named, None

    async def _authenticate(self, scope: Scope) -> Principal:
        args = (_header(scope, b"x-api-key"), _bearer(scope), scope["path"])
        if self.authenticator.blocking:
            return await run_in_threadpool(self.authenticator.authenticate, *args)
        return self.authenticator.authenticate(*args)


class BodyLimits:
    """The largest body each path may send: MAX_BODY_BYTES, except POST /v1/documents and the MCP endpoint (its tool
    `add_documents` carries documents as that route does): UPLOAD_MAX_BYTES, and POST /v1/graph/import:
    GRAPH_IMPORT_MAX_BYTES."""

    def __init__(self, settings: Settings) -> None:
        self.default = settings.max_body_bytes
        self.by_path = {f"{V1_PREFIX}/documents": settings.upload_max_bytes, MCP_PATH: settings.upload_max_bytes,
                        f"{V1_PREFIX}/graph/import": settings.graph_import_max_bytes}  # fmt: skip

    def __call__(self, path: str) -> int:
        return self.by_path.get(path, self.default)


class BodyLimitMiddleware:
    """413 for a body over its limit (`BodyLimits`): by Content-Length before the route runs, else (a chunked body)
    as soon as the bytes read pass the limit, so nothing over it is buffered or parsed."""

    def __init__(self, app: ASGIApp, limits: BodyLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits(scope["path"])
        declared = _header(scope, b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            await _too_large(limit)(scope, receive, send)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:  # FastAPI re-raises an HTTPException met while reading the body
                    raise HTTPException(413, {"code": "payload_too_large", "message": _too_large_message(limit)})
            return message

        await self.app(scope, limited_receive, send)


def _too_large_message(limit: int) -> str:
    return f"the request body is larger than {limit} bytes"


def _too_large(limit: int) -> Response:
    return error_response(413, "payload_too_large", _too_large_message(limit))
