"""OpenTelemetry traces, off unless an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, from the environment or .env).

Code everywhere opens spans through `span` (made current: what runs inside nests under it) or `leaf_span` (not
made current: safe across the yields of an async generator). Without a configured tracer provider both cost a no-op
span. Attributes name statements, stages, models and counts, never a question's text, a parameter or a key.

`configure_tracing(settings)` installs the SDK's provider once per process: its resource, sampler and batch
processor read the standard OTEL_* variables themselves (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS, ...).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, Status, StatusCode

from graphwire.core.settings import Settings

log = logging.getLogger(__name__)
TRACER_NAME = "graphwire"
SERVICE_NAME = "graphwire"
Attributes = Mapping[str, str | int | float | bool]

_tracer = trace.get_tracer(TRACER_NAME)
_configured = threading.Lock()
_provider: Any = None


@contextmanager
def span(
    name: str,
    attributes: Attributes | None = None,
    *,
    kind: trace.SpanKind = trace.SpanKind.INTERNAL,
    context: Context | None = None,
) -> Iterator[Span]:
    """A span made current for the block: spans opened inside it are its children (`context`: the parent, e.g. a
    caller's `traceparent`, instead of the current span). An exception marks it failed."""
    with _tracer.start_as_current_span(name, context=context, kind=kind, attributes=attributes) as current:
        yield current


def annotate(attributes: Attributes) -> None:
    """Add attributes to the current span (a no-op outside one)."""
    trace.get_current_span().set_attributes(attributes)


@contextmanager
def leaf_span(name: str, attributes: Attributes | None = None) -> Iterator[Span]:
    """A child of the current span that is not made current itself, ended when the block ends (or fails)."""
    opened = _tracer.start_span(name, attributes=attributes)
    try:
        yield opened
    except BaseException as exc:
        opened.record_exception(exc)
        opened.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        raise
    finally:
        opened.end()


def current_ids() -> tuple[str, str] | None:
    """(trace id, span id) of the current span as hex, or None outside a recorded trace."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


def otlp_endpoint(settings: Settings) -> str | None:
    """Where spans go: the traces endpoint as given, else the base endpoint + /v1/traces (the OTLP/HTTP default)."""
    if settings.otel_exporter_otlp_traces_endpoint:
        return settings.otel_exporter_otlp_traces_endpoint
    if settings.otel_exporter_otlp_endpoint:
        return settings.otel_exporter_otlp_endpoint.rstrip("/") + "/v1/traces"
    return None


def configure_tracing(settings: Settings) -> bool:
    """Install the SDK's tracer provider exporting over OTLP/HTTP, once per process; False when tracing is off (no
    endpoint, OTEL_SDK_DISABLED=true) or another provider was installed first (the embedding application's)."""
    global _provider
    endpoint = otlp_endpoint(settings)
    if endpoint is None or settings.otel_sdk_disabled:
        return False
    with _configured:
        if _provider is not None:
            return True
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        resource = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
        if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
            resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
        trace.set_tracer_provider(provider)
        if trace.get_tracer_provider() is not provider:
            log.warning("a tracer provider was already installed; graphwire's spans go to it")
            provider.shutdown()
            return False
        _provider = provider
        log.info("tracing on", extra={"otlp_endpoint": endpoint})
        return True


def flush_tracing() -> None:
    """Export what is buffered (the API's shutdown; the SDK shuts its provider down at exit); no-op when off."""
    if _provider is not None:
        _provider.force_flush()
