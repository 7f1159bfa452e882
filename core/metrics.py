"""Every Prometheus metric graphwire exports, defined once here so core, ingest, retrieval and app observe them
without importing one another. `exposition()` renders them for GET /metrics; `catalogue()` lists them (the metrics
table of docs/operations.md is generated from it).

One process: the metrics live in prometheus-client's default registry, with its process collector (memory, CPU, open
files). Several worker processes (`graphwire serve --workers N`): set PROMETHEUS_MULTIPROC_DIR to an empty folder
before the server starts; every worker then writes its values there and any worker's /metrics sums them (gauges as
documented per metric). Collectors that read shared state at scrape time (`ScrapeGauge`, the job store) answer the
same in every worker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client import generate_latest as _generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# seconds: a request or an LLM call (up to REQUEST_TIMEOUT_S), and the finer steps inside one (stages, statements)
SLOW_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
Kind = Literal["counter", "gauge", "histogram"]


@dataclass(frozen=True)
class MetricInfo:
    """One exported metric as a scraper sees it: counters are exposed with `_total`."""

    name: str
    kind: Kind
    labels: tuple[str, ...]
    help: str


_CATALOGUE: list[MetricInfo] = []
disable_created_metrics()  # no `_created` series beside every counter and histogram


def catalogue() -> list[MetricInfo]:
    """graphwire's own metrics in definition order (prometheus-client's process_* and python_* come beside them)."""
    return list(_CATALOGUE)


def _note(name: str, kind: Kind, labels: Sequence[str], help_text: str) -> None:
    _CATALOGUE.append(MetricInfo(name, kind, tuple(labels), help_text))


def _counter(name: str, help_text: str, labels: Sequence[str] = ()) -> Counter:
    _note(f"{name}_total", "counter", labels, help_text)
    return Counter(name, help_text, labels)


def _histogram(name: str, help_text: str, labels: Sequence[str], buckets: Sequence[float]) -> Histogram:
    _note(name, "histogram", labels, help_text)
    return Histogram(name, help_text, labels, buckets=buckets)


def _gauge(name: str, help_text: str, multiprocess_mode: Literal["max", "min", "sum", "mostrecent"]) -> Gauge:
    _note(name, "gauge", (), help_text)
    return Gauge(name, help_text, multiprocess_mode=multiprocess_mode)


class ScrapeGauge(Collector):
    """A gauge read at scrape time from shared state (a store every worker sees), so it needs no multiprocess files.
    `source` returns label value -> number; until the app sets one it reports nothing."""

    def __init__(self, name: str, help_text: str, label: str) -> None:
        self.name, self.help, self.label = name, help_text, label
        self.source: Callable[[], Mapping[str, float]] | None = None
        _note(name, "gauge", (label,), help_text)

    def collect(self) -> Iterable[Metric]:
        family = GaugeMetricFamily(self.name, self.help, labels=[self.label])
        for value, number in (self.source() if self.source is not None else {}).items():
            family.add_metric([value], number)
        yield family

    def describe(self) -> Iterable[Metric]:
        yield GaugeMetricFamily(self.name, self.help, labels=[self.label])


# HTTP (app/observability.py): route is the route template (/v1/jobs/{job_id}); "unmatched" when no route ran
HTTP_REQUESTS = _counter(
    "graphwire_http_requests", "HTTP requests answered, by route template, method, retrieval mode and status.",
    ("route", "method", "mode", "status"),
)  # fmt: skip
HTTP_DURATION = _histogram(
    "graphwire_http_request_duration_seconds", "Time to answer an HTTP request (streams: until the last byte).",
    ("route", "method", "mode", "status"), SLOW_BUCKETS,
)  # fmt: skip
# Authentication (app/auth/authenticate.py): requests to /v1, /mcp or /metrics refused with a 401
AUTH_FAILURES = _counter(
    "graphwire_auth_failures",
    "Requests refused for their credentials, by reason (missing, malformed, unknown_key, wrong_secret, expired, "
    "revoked, disabled, bad_token, token_expired, jwks_unavailable, wrong_key).",
    ("reason",),
)  # fmt: skip
# Retrieval and answers (app/querying.py, app/answering.py)
RETRIEVAL_STAGE = _histogram(
    "graphwire_retrieval_stage_duration_seconds",
    "Time per retrieval stage, from the stage timings every response carries (`timings_ms`); stage `total` is the "
    "whole retrieval.",
    ("mode", "stage"), FAST_BUCKETS,
)  # fmt: skip
ANSWERS = _counter(
    "graphwire_answers",
    "Answers given, by answerer and status (answered, abstained, llm_failed).",
    ("answerer", "status"),
)
# LLM (core/clients/llm.py): each attempt counts, retries included
LLM_CALLS = _counter("graphwire_llm_calls", "LLM call attempts by model and outcome (ok, error).", ("model", "outcome"))
LLM_TOKENS = _counter("graphwire_llm_tokens", "LLM tokens by model and kind (prompt, completion).", ("model", "kind"))
LLM_DURATION = _histogram(
    "graphwire_llm_call_duration_seconds", "Time of one LLM call attempt (a stream: until its end).", ("model",),
    SLOW_BUCKETS,
)  # fmt: skip
# Ingest (ingest/service.py IngestRun: the CLI, the API's jobs and the Python API)
INGEST_RUNS = _counter("graphwire_ingest_runs", "Ingest runs by outcome (ok, error).", ("outcome",))
INGEST_DOCUMENTS = _counter(
    "graphwire_ingest_documents",
    "Documents ingest runs handled, by outcome: written (updated ones included), updated, unchanged.",
    ("outcome",),
)  # fmt: skip
INGEST_CHUNKS = _counter("graphwire_ingest_chunks", "Chunks ingest runs wrote.")
INGEST_FAILURES = _counter(
    "graphwire_ingest_failures",
    "Ingest failures by kind: extraction (a chunk whose extraction failed), record (a posted record refused).",
    ("kind",),
)  # fmt: skip
JOBS = ScrapeGauge(
    "graphwire_document_jobs", "Document jobs of the job store by state (queued is the queue depth).", "state"
)
# Feeds (ingest/feed_watch.py: `graphwire watch` and the API's FEED_WATCH); `feed` is the configured URL
FEED_POLLS = _counter(
    "graphwire_feed_polls", "Feed polls by feed and outcome (ingested, unchanged, not_modified, error).",
    ("feed", "outcome"),
)  # fmt: skip
FEED_ENTRIES = _counter(
    "graphwire_feed_entries", "Feed entries polls found, by feed and outcome (new, updated, unchanged, failed).",
    ("feed", "outcome"),
)  # fmt: skip
FEED_ERRORS = ScrapeGauge(
    "graphwire_feed_consecutive_errors", "Polls of a feed failed in a row (0 once one succeeds), by feed.", "feed"
)
# Neo4j (core/clients/graph.py, core/clients/breaker.py)
CYPHER_DURATION = _histogram(
    "graphwire_cypher_statement_duration_seconds", "Time of one Cypher statement, by its cypher/ file name.",
    ("statement",), FAST_BUCKETS,
)  # fmt: skip
CYPHER_ERRORS = _counter("graphwire_cypher_statement_errors", "Cypher statements that raised, by name.", ("statement",))
BREAKER_OPEN = _gauge(
    "graphwire_neo4j_breaker_open",
    "1 while the API's Neo4j circuit breaker is open (Neo4j found unreachable; requests answer 503), else 0. "
    "Several workers: the highest.",
    "max",
)
BREAKER_TRIPS = _counter("graphwire_neo4j_breaker_trips", "Times the Neo4j circuit breaker opened.")
# Caches (core/stores/refresh.py: the name index, the PPR snapshot, the flat index)
CACHE_REFRESHES = _counter(
    "graphwire_cache_refreshes", "Rebuilds of an in-memory view of the stores after the graph changed, by cache.",
    ("cache",),
)  # fmt: skip
CACHE_REFRESH_DURATION = _histogram(
    "graphwire_cache_refresh_duration_seconds", "Time to rebuild an in-memory view, by cache.", ("cache",), SLOW_BUCKETS
)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def scrape_registry() -> CollectorRegistry:
    """What /metrics shows: the default registry, or with PROMETHEUS_MULTIPROC_DIR every worker's values summed."""
    if multiprocess_dir() is None:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    registry.register(JOBS)
    registry.register(FEED_ERRORS)
    return registry


def exposition() -> tuple[bytes, str]:
    """The text exposition of every metric and its content type."""
    return _generate_latest(scrape_registry()), CONTENT_TYPE_LATEST


REGISTRY.register(JOBS)
REGISTRY.register(FEED_ERRORS)
