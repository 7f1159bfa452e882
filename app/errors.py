"""One JSON error shape for every 4xx/5xx response:

    {"error": {"code": "not_found", "message": "...", "request_id": "...", "details": ...}}

Routers raise `ApiError` (or FastAPI's `HTTPException`); Neo4j being unreachable becomes a 503. `as_api_error` says
what the API answers to an exception, for the surfaces that are not HTTP routes (the MCP tools, app/mcp/).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import AuthError, DatabaseUnavailable, ServiceUnavailable, SessionExpired
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from graphwire.app.resources import Neo4jNotConfiguredError
from graphwire.core.clients.breaker import CircuitOpenError
from graphwire.core.logging import request_id_var

log = logging.getLogger(__name__)

NEO4J_DOWN_MESSAGE = "Neo4j is unavailable; check `graphwire neo4j status` or NEO4J_URI"


class ErrorBody(BaseModel):
    code: str = Field(description="Machine-readable error code, e.g. validation_error, unauthorized, timeout.")
    message: str = Field(description="What went wrong, for people.")
    request_id: str | None = Field(default=None, description="The request's X-Request-ID, for the server logs.")
    details: Any = Field(default=None, description="Extra context (e.g. the known modes or labels), when any.")


class ErrorResponse(BaseModel):
    """The body of every error response (documented in OpenAPI)."""

    error: ErrorBody = Field(description="The error.")


class ApiError(Exception):
    """Raise from a router to answer with `status` and the standard error body."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


def _code_for(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return "error"


def error_response(
    status: int, code: str, message: str, details: Any = None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    body = ErrorResponse(error=ErrorBody(code=code, message=message, request_id=request_id_var.get(), details=details))
    return JSONResponse(jsonable_encoder(body, exclude_none=True), status_code=status, headers=headers)


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.details)


async def _http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail
    if isinstance(detail, dict) and "message" in detail:
        code = str(detail.get("code") or _code_for(exc.status_code))
        return error_response(exc.status_code, code, str(detail["message"]), detail.get("details"), exc.headers)
    return error_response(exc.status_code, _code_for(exc.status_code), str(detail), headers=exc.headers)


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in exc.errors()]
    return error_response(422, "validation_error", "the request is not valid", details)


NEO4J_DOWN = (ServiceUnavailable, SessionExpired, DatabaseUnavailable)  # DatabaseUnavailable: shutting down or starting


def as_api_error(exc: BaseException) -> ApiError | None:
    """The error the API answers `exc` with (an `ApiError` itself, or Neo4j unreachable, refusing the credentials or
    not configured), or None for an exception the API does not expect (a 500)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, NEO4J_DOWN):
        return ApiError(503, "neo4j_unavailable", NEO4J_DOWN_MESSAGE, {"reason": str(exc)})
    if isinstance(exc, AuthError):
        return ApiError(503, "neo4j_auth", "Neo4j rejected the configured credentials (NEO4J_USER/NEO4J_PASSWORD)")
    if isinstance(exc, Neo4jNotConfiguredError):
        return ApiError(503, "neo4j_not_configured", str(exc))
    return None


def _respond(exc: Exception, headers: Mapping[str, str] | None = None) -> JSONResponse:
    error = as_api_error(exc)
    assert error is not None
    return error_response(error.status, error.code, error.message, error.details, headers)


async def _neo4j_unavailable(_: Request, exc: Exception) -> JSONResponse:
    log.warning("neo4j unavailable", extra={"error": str(exc)})
    # While the circuit breaker is open, the next attempt to reach Neo4j is this many seconds away.
    retry_after = math.ceil(exc.retry_after_s) if isinstance(exc, CircuitOpenError) else 1
    return _respond(exc, {"Retry-After": str(max(retry_after, 1))})


async def _neo4j_auth(_: Request, exc: Exception) -> JSONResponse:
    log.error("neo4j rejected the credentials", extra={"error": str(exc)})
    return _respond(exc)


async def _neo4j_not_configured(_: Request, exc: Exception) -> JSONResponse:
    return _respond(exc)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    for down in NEO4J_DOWN:
        app.add_exception_handler(down, _neo4j_unavailable)
    app.add_exception_handler(AuthError, _neo4j_auth)
    app.add_exception_handler(Neo4jNotConfiguredError, _neo4j_not_configured)
