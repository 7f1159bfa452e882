"""The FastAPI app: `create_app(settings)`, run by `graphwire serve` or `uvicorn --factory app.main:create_app`."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from starlette.concurrency import run_in_threadpool

from graphwire.app.errors import ErrorResponse, install_error_handlers
from graphwire.app.jobs.service import DocumentWrites
from graphwire.app.limits import install_openapi
from graphwire.app.middleware import ApiKeyMiddleware, BodyLimitMiddleware, BodyLimits, RequestContextMiddleware
from graphwire.app.observability import install_observability, start_metrics_listener
from graphwire.app.resources import ChromaProvider, GraphProvider
from graphwire.app.routers import build_v1_router, health
from graphwire.app.web import install_web
from graphwire.core import metrics
from graphwire.core.logging import configure_logging
from graphwire.core.settings import Settings, get_settings
from graphwire.core.tracing import flush_tracing
from graphwire.retrieval.registry import RetrievalContext

log = logging.getLogger(__name__)

DESCRIPTION = (
    "Graph-RAG over news-like corpora: multi-hop questions answered from a Neo4j knowledge graph with "
    "deterministic Cypher, beside a flat vector baseline. Errors share one shape: `{error: {code, message, "
    "request_id, details}}`; every response carries `X-Request-ID`."
)


def _try_connect(provider: GraphProvider) -> None:
    """Reach Neo4j once at start so the schema is applied early; being down is logged, never fatal."""
    try:
        info = provider.ping()
        log.info("neo4j reachable", extra=info)
    except Exception as exc:
        log.warning("neo4j not reachable at start; /health reports it until it is", extra={"error": str(exc)})


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    app.state.graph_provider = GraphProvider(settings, apply_schema_on_connect=settings.neo4j_apply_schema_on_start)
    app.state.chroma_provider = ChromaProvider(settings)
    app.state.retrieval = RetrievalContext(
        settings, graph=app.state.graph_provider.get, chroma=app.state.chroma_provider.get
    )
    app.state.document_writes = DocumentWrites.build(
        settings, app.state.graph_provider.get, app.state.chroma_provider.get, app.state.retrieval.refresh
    )
    metrics.JOBS.source = app.state.document_writes.store.counts  # the queue as /metrics reads it
    metrics_listener = start_metrics_listener(settings)  # METRICS_PORT, else None (/metrics is on the API)
    await run_in_threadpool(_try_connect, app.state.graph_provider)
    app.state.document_writes.runner.start()
    try:
        yield
    finally:
        await run_in_threadpool(app.state.document_writes.runner.stop)
        app.state.graph_provider.close()
        log.info("neo4j driver closed")
        await run_in_threadpool(flush_tracing)
        if metrics_listener is not None:
            metrics_listener.shutdown()
            metrics_listener.server_close()


def create_app(settings: Settings | None = None, *, extra_v1_routers: Sequence[APIRouter] = ()) -> FastAPI:
    """Build the app. `extra_v1_routers` lets tests mount routers under /v1 with the same API-key guard."""
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
    app.add_middleware(ApiKeyMiddleware, settings=settings)
    app.add_middleware(RequestContextMiddleware)  # every answer, 401 and 413 too, has a request id
    install_observability(app, settings)  # outermost: the request's span and metrics
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(build_v1_router(extra_v1_routers, secured=settings.api_key is not None))
    install_openapi(app, settings, body_limits)
    install_web(app, api_key_required=settings.api_key is not None)
    return app
