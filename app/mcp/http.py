"""The MCP server's streamable HTTP transport at /mcp of the API (`install_mcp`), for agents that reach graphwire
over the network (Cursor, VS Code, an MCP client library).

Stateless and JSON: every POST is one MCP request answered with one JSON body, so no session outlives a request, an
API restart breaks no client and several workers need nothing shared. The key check is the API's own
(`ApiKeyMiddleware` guards /mcp as it guards /v1: 401 without the key); the tools run on the `Services` of the
request's workspace (`X-Graphwire-Workspace`, else the server's), as the /v1 routes do.
Without API_KEY, on a loopback API_HOST, requests must also name this machine in their Host header (localhost,
127.0.0.1, [::1]): the SDK's DNS-rebinding protection, so that a web page cannot reach the tools through a name
that resolves to 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from graphwire.app.errors import error_response
from graphwire.app.mcp.server import GraphwireMCP, build_server, current_caller
from graphwire.app.middleware import MCP_PATH
from graphwire.app.services import Services
from graphwire.app.workspaces import WorkspaceServices
from graphwire.core.settings import AuthMode, Settings

LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


class McpEndpoint:
    """The ASGI endpoint at /mcp: the MCP server's session manager while the app runs (`running`), a 503 before."""

    def __init__(self, server: GraphwireMCP, settings: Settings) -> None:
        self.server, self.settings = server, settings
        self._app: StreamableHTTPASGIApp | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """A session manager lives for one run of the app (the SDK's cannot be run twice), so each lifespan gets one."""
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            transport_security=transport_security(self.settings),
            max_request_body_size=self.settings.upload_max_bytes,  # add_documents carries what POST /v1/documents does
        )
        manager = self.server.session_manager
        async with manager.run():
            self._app = StreamableHTTPASGIApp(manager)
            try:
                yield
            finally:
                self._app = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None:
            await error_response(503, "starting", "the MCP endpoint is not running yet")(scope, receive, send)
            return
        await self._app(scope, receive, send)


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """DNS-rebinding protection (Host and Origin checked) when no key guards the endpoint and the API is meant for
    this machine alone; with API_KEY, or bound for others (API_HOST beyond loopback), the key is the guard."""
    if settings.effective_auth_mode is not AuthMode.NONE or not _loopback(settings.api_host):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=LOOPBACK_HOSTS, allowed_origins=LOOPBACK_ORIGINS
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def install_mcp(app: FastAPI, settings: Settings) -> McpEndpoint:
    """Route /mcp to a new MCP server over the app's `Services` (app.state.services, set by the lifespan); the
    lifespan runs the returned endpoint's `running()`."""
    # the SDK logs "Terminating session" for every stateless request; the access log has one line per request already
    logging.getLogger("mcp.server.streamable_http").setLevel(max(logging.WARNING, logging.getLogger().level))

    def services() -> Services:  # the caller's workspace (X-Graphwire-Workspace), as for the /v1 routes
        spaces: WorkspaceServices = app.state.workspaces
        return spaces.of(current_caller().workspace)

    endpoint = McpEndpoint(build_server(settings, services), settings)
    app.router.routes.append(Route(MCP_PATH, endpoint, include_in_schema=False))  # an ASGI app: any method
    return endpoint
