"""The operator's side without Neo4j: probes, /metrics behind the key or on a port of its own, the metrics reference
in docs/operations.md equal to the definitions, worker processes summed through PROMETHEUS_MULTIPROC_DIR, trace ids
in the logs, and tracing off unless an endpoint is configured."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from graphwire.app.main import create_app
from graphwire.cli.serve_cmd import fresh_multiprocess_dir
from graphwire.core import tracing
from graphwire.core.logging import RequestIdFilter
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import gen_metrics_doc  # noqa: E402

KEY = "unit-key"


def settings_for(tmp_path: Path, **values: Any) -> Settings:
    """Neo4j is "down" (nothing listens on the port); Chroma is a folder."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",
        neo4j_password="not-used-here",
        chroma_path=tmp_path / "chroma",
        ingest_state_path=tmp_path / "state",
        **values,
    )


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_the_metrics_reference_in_the_docs_is_the_definitions() -> None:
    text = gen_metrics_doc.OPERATIONS.read_text(encoding="utf-8")
    table = gen_metrics_doc.render_table(gen_metrics_doc.catalogue())
    assert gen_metrics_doc.with_table(text, table) == text, "run `.venv/bin/python tools/gen_metrics_doc.py`"
    assert "graphwire_http_requests_total" in table and "graphwire_document_jobs" in table


def test_liveness_is_up_while_readiness_says_what_is_missing(tmp_path: Path) -> None:
    with TestClient(create_app(settings_for(tmp_path, api_key=SecretStr(KEY)))) as client:
        assert client.get("/health/live").json() == {"status": "ok"}
        anonymous = client.get("/health/ready")
        assert anonymous.status_code == 503 and anonymous.json() == {"status": "unready"}  # no details without key
        assert anonymous.headers["Retry-After"]
        checks = client.get("/health/ready", headers={"X-API-Key": KEY}).json()["checks"]
    assert checks["neo4j"]["status"] == "error" and "breaker" in checks["neo4j"]["reason"]
    assert checks["chroma"]["status"] == "ok"
    assert checks["schema"]["reason"] == checks["caches"]["reason"] == "not checked: Neo4j is unreachable"


def test_metrics_need_the_key_and_label_routes_by_template(tmp_path: Path) -> None:
    with TestClient(create_app(settings_for(tmp_path, api_key=SecretStr(KEY)))) as client:
        assert client.get("/metrics").status_code == 401
        client.get("/v1/jobs/some-unknown-job", headers={"X-API-Key": KEY})
        before = samples(client.get("/metrics", headers={"Authorization": f"Bearer {KEY}"}).text)
        assert client.get("/v1/jobs/another-job", headers={"X-API-Key": KEY}).status_code == 404
        after = samples(client.get("/metrics", headers={"X-API-Key": KEY}).text)
    key = ("graphwire_http_requests_total",
           frozenset({"route": "/v1/jobs/{job_id}", "method": "GET", "mode": "", "status": "404"}.items()))  # fmt: skip
    assert after[key] - before[key] == 1
    assert not [name for name, labels in after if any("another-job" in v for _, v in labels)]  # never the raw path
    assert after[("graphwire_document_jobs", frozenset({"state": "queued"}.items()))] == 0


def test_metrics_can_be_off_or_on_a_port_of_their_own(tmp_path: Path) -> None:
    with TestClient(create_app(settings_for(tmp_path, metrics_enabled=False))) as client:
        assert client.get("/metrics").status_code == 404
    port = free_port()
    with TestClient(create_app(settings_for(tmp_path, metrics_port=port))) as client:
        assert client.get("/metrics").status_code == 404  # not on the API's port
        client.get("/health/live")
        scraped = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
        assert scraped.status_code == 200
        assert samples(scraped.text)[
            ("graphwire_http_requests_total",
             frozenset({"route": "/health/live", "method": "GET", "mode": "", "status": "200"}.items()))
        ] >= 1  # fmt: skip
    with pytest.raises(httpx.TransportError):  # the listener stops with the app
        httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2)


WORKER = """
from graphwire.core import metrics
metrics.HTTP_REQUESTS.labels("/v1/retrieve", "POST", "graph", "200").inc({n})
metrics.BREAKER_OPEN.set({open})
"""


def test_worker_processes_are_summed_through_the_multiprocess_folder(tmp_path: Path) -> None:
    folder = tmp_path / "prometheus"
    folder.mkdir()
    (folder / "counter_99999.db").write_bytes(b"left by a previous run")
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder), "PYTHONPATH": str(ROOT)}
    assert fresh_multiprocess_dir() is None  # unset here
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    try:
        assert fresh_multiprocess_dir() == folder and not list(folder.glob("*.db"))
    finally:
        del os.environ["PROMETHEUS_MULTIPROC_DIR"]
    for n, is_open in ((2, 0), (3, 1)):
        subprocess.run([sys.executable, "-c", WORKER.format(n=n, open=is_open)], env=env, check=True, cwd=tmp_path)
    scrape = "from graphwire.core import metrics; print(metrics.exposition()[0].decode())"
    text = subprocess.run(
        [sys.executable, "-c", scrape], env=env, check=True, cwd=tmp_path, capture_output=True, text=True
    ).stdout
    found = samples(text)
    labels = frozenset({"route": "/v1/retrieve", "method": "POST", "mode": "graph", "status": "200"}.items())
    assert found[("graphwire_http_requests_total", labels)] == 5  # 2 + 3
    assert found[("graphwire_neo4j_breaker_open", frozenset())] == 1  # the highest of the workers


@pytest.fixture
def sdk_provider() -> Iterator[TracerProvider]:
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    yield provider


def test_log_records_carry_the_trace_and_span_ids_inside_a_span(sdk_provider: TracerProvider) -> None:
    record = logging.LogRecord("graphwire.test", logging.INFO, __file__, 1, "outside", None, None)
    RequestIdFilter().filter(record)
    assert not hasattr(record, "trace_id")
    with tracing.span("unit") as span:
        inside = logging.LogRecord("graphwire.test", logging.INFO, __file__, 1, "inside", None, None)
        RequestIdFilter().filter(inside)
    context = span.get_span_context()
    assert inside.trace_id == format(context.trace_id, "032x")  # type: ignore[attr-defined]
    assert inside.span_id == format(context.span_id, "016x")  # type: ignore[attr-defined]


def test_tracing_is_off_unless_an_endpoint_is_set(tmp_path: Path) -> None:
    assert tracing.otlp_endpoint(settings_for(tmp_path)) is None
    assert not tracing.configure_tracing(settings_for(tmp_path))
    base = settings_for(tmp_path, otel_exporter_otlp_endpoint="http://collector:4318/")
    assert tracing.otlp_endpoint(base) == "http://collector:4318/v1/traces"
    full = base.model_copy(update={"otel_exporter_otlp_traces_endpoint": "http://other:4318/traces"})
    assert tracing.otlp_endpoint(full) == "http://other:4318/traces"
    assert not tracing.configure_tracing(full.model_copy(update={"otel_sdk_disabled": True}))
