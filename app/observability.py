"""What a platform scrapes and traces of the API: one ASGI middleware that opens each request's span and counts it in
the HTTP metrics (by route template, method, retrieval mode and status), GET /metrics, and the helpers the query
routes call to label their request with its mode and count their answers (core/metrics.py defines the metrics)."""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from fastapi import APIRouter, FastAPI, Response
from opentelemetry import propagate, trace
from prometheus_client import CONTENT_TYPE_LATEST, start_http_server
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphwire.app.middleware import METRICS_PATH
from graphwire.core import metrics, tracing
from graphwire.core.settings import Settings
from graphwire.retrieval.models import Answer

log = logging.getLogger(__name__)
# the route label of a request no route ran for: a 404, or a 401/413 answered before routing (raw paths are unbounded)
UNMATCHED = "unmatched"


@dataclass
class RequestLabels:
    """Filled while a request runs (in worker threads too: they run in a copy of its context, same object)."""

    mode: str = ""


_labels: ContextVar[RequestLabels | None] = ContextVar("graphwire_request_labels", default=None)


def label_mode(mode: str) -> None:
    """The retrieval mode this request asked for: its `mode` label in the HTTP metrics."""
    if (labels := _labels.get()) is not None:
        labels.mode = mode


def observe_retrieval(mode: str, timings_ms: dict[str, float]) -> None:
    """Every stage time of one retrieval (what its response carries as `timings_ms`) in the stage histogram."""
    for stage, ms in timings_ms.items():
        metrics.RETRIEVAL_STAGE.labels(mode, stage).observe(ms / 1000)


def observe_answer(answer: Answer) -> None:
    metrics.ANSWERS.labels(answer.answerer, answer.status.value).inc()


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}


def route_template(scope: Scope) -> str:
    """The matched route's path template with its router's prefix (/v1/jobs/{job_id}), or UNMATCHED. FastAPI keeps
    an included router's routes relative to it and records the full path of the one it ran in the scope."""
    effective = getattr((scope.get("fastapi") or {}).get("effective_route_context"), "path", None)
    return str(effective or getattr(scope.get("route"), "path", None) or UNMATCHED)


class ObservabilityMiddleware:
    """Outermost: each HTTP request is a server span (a `traceparent` header continues the caller's trace) named by
    its route template, and one count and duration in the HTTP metrics. Neither holds the path's raw text, the query
    string, a header or the body."""

    def __init__(self, app: ASGIApp, count: bool = True) -> None:
        self.app = app
        self.count = count  # METRICS_ENABLED: off, the request is only traced

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        labels = RequestLabels()
        token = _labels.set(labels)
        status = 500
        started = time.perf_counter()
        context = propagate.extract(_headers(scope))

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        with tracing.span(method, kind=trace.SpanKind.SERVER, context=context) as span:
            try:
                await self.app(scope, receive, send_status)
            finally:
                route = route_template(scope)
                span.update_name(f"{method} {route}")
                span.set_attributes({"http.request.method": method, "http.route": route,
                                     "http.response.status_code": status})  # fmt: skip
                if labels.mode:
                    span.set_attribute("graphwire.mode", labels.mode)
                elapsed = time.perf_counter() - started
                if self.count:
                    metrics.HTTP_REQUESTS.labels(route, method, labels.mode, str(status)).inc()
                    metrics.HTTP_DURATION.labels(route, method, labels.mode, str(status)).observe(elapsed)
                _labels.reset(token)


metrics_router = APIRouter(tags=["service"])


@metrics_router.get(
    METRICS_PATH,
    response_class=Response,
    responses={200: {"description": "Every metric.", "content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}},
)
def get_metrics() -> Response:
    """Prometheus metrics (text exposition format). With API_KEY set it needs the key, as X-API-Key or as a bearer
    token (Prometheus' `authorization` setting); with METRICS_PORT set they are served there instead."""
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)


def install_observability(app: FastAPI, settings: Settings) -> None:
    """Traces when an OTLP endpoint is configured; /metrics on the API unless off or on a port of its own."""
    tracing.configure_tracing(settings)
    app.add_middleware(ObservabilityMiddleware, count=settings.metrics_enabled)
    if settings.metrics_enabled and settings.metrics_port is None:
        app.include_router(metrics_router)


def start_metrics_listener(settings: Settings) -> WSGIServer | None:
    """With METRICS_PORT set, serve the metrics there until `shutdown()` is called on the server returned. Several
    workers: the first to bind serves them, and with PROMETHEUS_MULTIPROC_DIR its answer sums every worker's values."""
    if not settings.metrics_enabled or settings.metrics_port is None:
        return None
    try:
        server, _ = start_http_server(settings.metrics_port, settings.metrics_host, registry=metrics.scrape_registry())
    except OSError as exc:
        log.info(
            "metrics port already served (another worker)", extra={"port": settings.metrics_port, "error": str(exc)}
        )
        return None
    log.info("metrics served", extra={"host": settings.metrics_host, "port": settings.metrics_port})
    return server
