"""The FastAPI app: `create_app(settings)`, run by `graphwire serve` or `uvicorn --factory app.main:create_app`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from starlette.concurrency import run_in_threadpool

from graphwire.app.auth.authenticate import Authenticator
from graphwire.app.errors import ErrorResponse, install_error_handlers
from graphwire.app.limits import install_openapi
from graphwire.app.mcp.http import McpEndpoint, install_mcp
from graphwire.app.middleware import ApiKeyMiddleware, BodyLimitMiddleware, BodyLimits, RequestContextMiddleware
from graphwire.app.observability import install_observability, start_metrics_listener
from graphwire.app.routers import build_v1_router, health
from graphwire.app.services import Services
from graphwire.app.web import install_web
from graphwire.app.workspaces import WorkspaceServices
from graphwire.core import metrics
from graphwire.core.logging import configure_logging
from graphwire.core.settings import Settings, get_settings
from graphwire.core.tracing import flush_tracing

DESCRIPTION = (
    "Graph-RAG over news-like corpora: multi-hop questions answered from a Neo4j knowledge graph with "
    "deterministic Cypher, beside a flat vector baseline. Errors share one shape: `{error: {code, message, "
    "request_id, details}}`; every response carries `X-Request-ID`."
)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    services = Services.build(app.state.settings)  # what the routes (app/deps.py) and the MCP tools share
    app.state.services = services
    app.state.workspaces = workspaces = WorkspaceServices(services)  # X-Graphwire-Workspace: the others, on demand
    app.state.graph_provider, app.state.chroma_provider = services.graph_provider, services.chroma_provider
    app.state.retrieval, app.state.document_writes = services.retrieval, services.document_writes
    app.state.curation, app.state.exchange = services.curation, services.exchange
    metrics.JOBS.source = services.document_writes.store.counts  # the queue as /metrics reads it
    metrics_listener = start_metrics_listener(app.state.settings)  # METRICS_PORT, else None (/metrics is on the API)
    await run_in_threadpool(services.start)
    workspaces.start()  # the deleter: first finishes any workspace delete a stop or a crash cut short
    await run_in_threadpool(services.feeds.start)  # FEED_WATCH: poll FEED_URLS into document jobs
    mcp: McpEndpoint = app.state.mcp
    try:
        async with mcp.running():
            yield
    finally:
        await run_in_threadpool(workspaces.stop)
        await run_in_threadpool(flush_tracing)
        if metrics_listener is not None:
            metrics_listener.shutdown()
            metrics_listener.server_close()


def create_app(settings: Settings | None = None, *, extra_v1_routers: Sequence[APIRouter] = ()) -> FastAPI:
    """Build the app. `extra_v1_routers` lets tests mount routers under /v1 behind the same guard and reader role."""
    settings = settings or get_settings()
    configure_logging(settings.log_level, settings.log_json)
    app = FastAPI(
        title="graphwire",
        version=health.package_version(),
        description=DESCRIPTION,
        lifespan=_lifespan,
        responses={"4XX": {"model": ErrorResponse}, "5XX": {"model": ErrorResponse}},
        docs_url=None,  # /docs and /redoc come from install_web, with local assets
        redoc_url=None,
    )
    app.state.settings = settings
    body_limits = BodyLimits(settings)
    app.add_middleware(BodyLimitMiddleware, limits=body_limits)  # innermost: runs after the key check
    app.state.authenticator = authenticator = Authenticator.build(settings)  # AUTH_MODE: who may call /v1 and /mcp
    app.add_middleware(ApiKeyMiddleware, authenticator=authenticator)
    app.add_middleware(RequestContextMiddleware)  # every answer, 401 and 413 too, has a request id
    install_observability(app, settings)  # outermost: the request's span and metrics
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(build_v1_router(extra_v1_routers, secured=authenticator.guards))
    install_openapi(app, settings, body_limits)
    install_web(app, api_key_required=authenticator.guards, workspace=settings.workspace)
    app.state.mcp = install_mcp(app, settings)  # /mcp: the MCP server over streamable HTTP, behind the same key
    return app
