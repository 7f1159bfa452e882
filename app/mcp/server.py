"""The graphwire MCP server (Model Context Protocol, the `mcp` SDK's `MCPServer`): the API's questions, graph and
documents as typed tools, documents and chunks as resources, served over stdio by `graphwire mcp`
(app/mcp/stdio.py) and over streamable HTTP at /mcp of the API (app/mcp/http.py).

Every tool calls the functions the HTTP routes call (app/querying.py, app/graph_access.py, app/documents.py, the
document jobs of app/jobs/), on the same process-wide objects (`Services`), so an answer, a lookup or a write is the
same whichever door it came through. Errors are the API's: an `ApiError` (or Neo4j down, `as_api_error`) becomes a
tool error (`isError`) whose text is the API's message, its code and details; invalid arguments name each field and
what is wrong with it. Anything else is logged with its traceback and reaches the client only as the tool's name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
)
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import AnyUrl, ValidationError

from graphwire.app.auth.authenticate import PRINCIPAL_SCOPE_KEY
from graphwire.app.errors import ApiError, as_api_error
from graphwire.app.services import Services
from graphwire.core.auth.models import LOCAL, Principal, Role
from graphwire.core.settings import Settings

INSTRUCTIONS = (
    "graphwire answers questions from a knowledge graph built from news-like documents (entities, their relations "
    "and the passages each fact came from). Use `ask` for a question: the answer cites the chunks it rests on, and "
    "each citation's `uri` opens the chunk as a resource. Use `retrieve` for the passages and facts without an "
    "answer, `find_entities`, `neighbourhood` and `path` to explore the graph, `list_documents` and `get_document` "
    'for the documents. An answer of exactly "Insufficient information." means the documents do not answer it.'
)


# the principal of the tool call or resource read running now: whose workspace it reads, what the writing tools name
# in the audit log (current_caller)
_CALLER: ContextVar[Principal | None] = ContextVar("graphwire_mcp_caller", default=None)


def current_caller() -> Principal:
    """Who called the tool now running: the request's principal over HTTP, the local user over stdio."""
    return _CALLER.get() or LOCAL


class GraphwireMCP(MCPServer[Any]):
    """`MCPServer` whose tool and resource errors carry the API's messages (module docstring)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:  # an unknown tool is the SDK's error
            read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
            refusal = refused(context, Role.READER if read_only else Role.WRITER)
            if refusal is not None:
                raise ToolError(f"{name}: {refusal} (forbidden)")
        token = _CALLER.set(caller(context))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            text = describe(exc.__cause__)
            if text is None:
                raise
            raise ToolError(f"{name}: {text}") from exc.__cause__
        finally:
            _CALLER.reset(token)

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        refusal = refused(context, Role.READER)
        if refusal is not None:
            raise ResourceError(f"{refusal} (forbidden)")
        token = _CALLER.set(caller(context))
        try:
            return await super().read_resource(uri, context)
        except UnexpectedResourceError as exc:
            error = as_api_error(exc.__cause__) if exc.__cause__ is not None else None
            if error is None:
                raise
            if error.status == 404:  # an unknown document or chunk id: the client's mistake (invalid params)
                raise ResourceNotFoundError(api_message(error)) from exc.__cause__
            raise ResourceError(api_message(error)) from exc.__cause__
        finally:
            _CALLER.reset(token)


def refused(context: Context[Any, Any] | None, needed: Role) -> str | None:
    """Why the caller may not do what needs `needed` in the workspace it acts in (its request's), or None when it
    may. Over HTTP the caller is the principal the API's middleware authenticated for this request; over
    stdio (no request) it is the local user who started `graphwire mcp`, who may do everything."""
    request = _request(context)
    if request is None:
        return None
    caller = getattr(request, "scope", {}).get(PRINCIPAL_SCOPE_KEY)
    if not isinstance(caller, Principal):
        return "the caller is not authenticated"
    return caller.refusal(needed)


def caller(context: Context[Any, Any] | None) -> Principal | None:
    """The request's principal over HTTP; None outside a request (stdio: the local user)."""
    request = _request(context)
    found = getattr(request, "scope", {}).get(PRINCIPAL_SCOPE_KEY) if request is not None else None
    return found if isinstance(found, Principal) else None


def _request(context: Context[Any, Any] | None) -> Any:
    if context is None:
        return None
    try:
        return context.request_context.request
    except ValueError:  # outside a request: a direct call, as over stdio
        return None


def describe(exc: BaseException | None) -> str | None:
    """The text of a tool or resource error: the API's message for what the API answers (app/errors.py), each
    field's problem for invalid arguments; None for an unexpected exception (its text stays in the server's log)."""
    if isinstance(exc, ValidationError):
        problems = [f"{'.'.join(str(part) for part in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()]
        return "invalid arguments: " + "; ".join(problems)
    error = as_api_error(exc) if exc is not None else None
    return None if error is None else api_message(error)


def api_message(error: ApiError) -> str:
    text = f"{error.message} ({error.code})"
    if error.details:
        text += f"; details: {json.dumps(error.details, default=str, ensure_ascii=False)}"
    return text


def package_version() -> str:
    try:
        return version("graphwire")
    except PackageNotFoundError:
        return "0+unknown"


def build_server(
    settings: Settings,
    services: Callable[[], Services],
    lifespan: Callable[[GraphwireMCP], AbstractAsyncContextManager[Any]] | None = None,
) -> GraphwireMCP:
    """The server with every tool and resource; `services` hands out the process's `Services` when a call runs.
    The writing tools are there only with MCP_ALLOW_WRITES."""
    from graphwire.app.mcp import document_tools, tools

    server = GraphwireMCP(
        name="graphwire",
        title="graphwire",
        version=package_version(),
        instructions=INSTRUCTIONS,
        lifespan=lifespan,  # type: ignore[arg-type,unused-ignore]  # MCPServer's lifespan is typed for MCPServer[Any], ours for it
        log_level=settings.log_level.value,
    )
    tools.register(server, settings, services)
    document_tools.register(server, settings, services)
    return server
