"""`graphwire mcp`: the MCP server over stdio, for desktop agents (Claude Desktop, Cursor, VS Code) that start it as a
subprocess. The process runs as the local user who started it, with that user's settings (.env, environment) and
stores, so there is no key to check: whoever can start it can already read the stores. MCP_ALLOW_WRITES still
decides whether the writing tools are offered.

It builds the same `Services` as the API, inside the session (after the SDK has taken stdin and stdout for the
protocol, so a stray print cannot corrupt it), and closes them when the client closes the session: the job worker
stops at a batch boundary and the Neo4j driver is closed. A job still queued when it ends runs at the next start of
`graphwire mcp` or of the API with the same INGEST_STATE_PATH; one it was killed in is reported failed, as the API's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from graphwire.app.mcp.server import GraphwireMCP, build_server
from graphwire.app.services import Services
from graphwire.core.settings import Settings


def stdio_server(settings: Settings) -> GraphwireMCP:
    """The server whose lifespan (one stdio session) builds, starts and stops the process's `Services`."""
    running: list[Services] = []

    def services() -> Services:
        if not running:
            raise RuntimeError("the MCP session has not started")
        return running[0]

    @asynccontextmanager
    async def lifespan(_: GraphwireMCP) -> AsyncIterator[None]:
        built = Services.build(settings)
        await anyio.to_thread.run_sync(built.start)
        running.append(built)
        try:
            yield
        finally:
            running.clear()
            await anyio.to_thread.run_sync(built.stop)

    return build_server(settings, services, lifespan=lifespan)


def serve_stdio(settings: Settings) -> None:
    """Serve one MCP session on stdin/stdout until the client closes it."""
    anyio.run(stdio_server(settings).run_stdio_async)
