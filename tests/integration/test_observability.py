"""What a platform scrapes and traces, over real Neo4j, Chroma and HTTP: /metrics moves by exactly the requests and
the ingest done between two scrapes (and parses as Prometheus text); one /v1/query is one trace whose span tree holds
the request, the retrieval, its stages and its Cypher statements by file name, and no question text or API key."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr
from support.openai_stub import MODEL, OpenAIStub, server_error, text

from graphwire import DEMO_CORPUS, Graphwire, cypher
from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings

pytestmark = pytest.mark.integration
QUESTION = "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?"
KEY = "observability-test-key"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: TestClient, key: str | None = KEY) -> Samples:
    """Every sample of /metrics (sent with `key`, when the app has one), parsed as Prometheus text."""
    response = client.get("/metrics", headers={"X-API-Key": key} if key else {})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


@pytest.fixture
def settings(neo4j_settings: Settings, tmp_path: Path) -> Settings:
    return neo4j_settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state", "api_key": SecretStr(KEY),
                "graph_fill_mode": "none"}
    )  # fmt: skip


def test_metrics_move_by_exactly_the_requests_and_the_ingest_done(graph: Graph, settings: Settings) -> None:
    records = [json.loads(line) for line in DEMO_CORPUS.read_text(encoding="utf-8").splitlines()[:2]]
    headers = {"X-API-Key": KEY}
    app = create_app(settings)
    with TestClient(app) as client:
        assert app.state.retrieval.warmup.wait(timeout_s=240)  # the startup warm-up's reads stay out of the window
        assert client.get("/metrics").status_code == 401  # behind the API key like /v1
        before = scrape(client)
        posted = client.post("/v1/documents", json={"documents": [*records, {"title": "no body"}]}, headers=headers)
        assert posted.status_code == 202, posted.text
        polls, job = 0, posted.json()
        while job["state"] not in ("succeeded", "failed"):
            time.sleep(0.1)
            polls += 1
            job = client.get(f"/v1/jobs/{job['job_id']}", headers=headers).json()
        assert job["state"] == "succeeded", job
        for _ in range(2):
            response = client.post("/v1/retrieve", json={"question": QUESTION, "mode": "graph"}, headers=headers)
            assert response.status_code == 200, response.text
        query = client.post("/v1/query", json={"question": QUESTION, "answerer": "extractive"}, headers=headers)
        assert query.status_code == 200, query.text
        assert client.delete("/v1/documents/no-such-document", headers=headers).status_code == 404
        assert client.get("/no/such/path").status_code == 404
        after = scrape(client)

    requests = "graphwire_http_requests_total"
    assert moved(before, after, requests, route="/v1/documents", method="POST", mode="", status="202") == 1
    assert moved(before, after, requests, route="/v1/jobs/{job_id}", method="GET", mode="", status="200") == polls
    assert moved(before, after, requests, route="/v1/retrieve", method="POST", mode="graph", status="200") == 2
    assert moved(before, after, requests, route="/v1/query", method="POST", mode="joint", status="200") == 1
    assert moved(before, after, requests, route="/v1/documents/{document_id:path}", method="DELETE", mode="",
                 status="404") == 1  # fmt: skip
    assert moved(before, after, requests, route="unmatched", method="GET", mode="", status="404") == 1
    assert moved(before, after, requests, route="/metrics", method="GET", mode="", status="200") == 1  # the first
    latency = "graphwire_http_request_duration_seconds_count"
    assert moved(before, after, latency, route="/v1/retrieve", method="POST", mode="graph", status="200") == 2
    assert moved(before, after, latency, route="/v1/query", method="POST", mode="joint", status="200") == 1
    # every retrieval observed each stage its response reported
    stages = "graphwire_retrieval_stage_duration_seconds_count"
    assert moved(before, after, stages, mode="graph", stage="total") == 2
    assert moved(before, after, stages, mode="joint", stage="total") == 1
    for stage in response.json()["timings_ms"]:
        assert moved(before, after, stages, mode="graph", stage=stage) == 2, stage
    answered = query.json()
    assert moved(before, after, "graphwire_answers_total", answerer="extractive",
                 status=answered["answer_status"]) == 1  # fmt: skip
    # the job's ingest run: two documents and their chunks written, the bodiless record refused
    assert moved(before, after, "graphwire_ingest_runs_total", outcome="ok") == 1
    assert moved(before, after, "graphwire_ingest_documents_total", outcome="written") == 2
    assert moved(before, after, "graphwire_ingest_chunks_total") == job["progress"]["chunks"] > 0
    assert moved(before, after, "graphwire_ingest_failures_total", kind="record") == 1
    assert value(after, "graphwire_document_jobs", state="succeeded") == 1
    assert value(after, "graphwire_document_jobs", state="queued") == 0
    # the delete of an unknown id ran one statement, once
    statement = "graphwire_cypher_statement_duration_seconds_count"
    assert moved(before, after, statement, statement="ingest/find_documents") == 1
    assert moved(before, after, "graphwire_cache_refreshes_total", cache="name_index") == 1  # built once, reused
    assert value(after, "graphwire_neo4j_breaker_open") == 0
    assert value(after, "process_resident_memory_bytes") > 0


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """The SDK's provider with an in-memory exporter (installed once per process: OpenTelemetry allows one)."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()


def ancestors(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[str]:
    names = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def test_one_query_is_one_trace_of_request_retrieval_stages_and_statements(
    graph: Graph, settings: Settings, spans: InMemorySpanExporter
) -> None:
    with Graphwire(settings) as gw:
        gw.ingest(DEMO_CORPUS)  # the Python API: the ingest is a trace of its own
    ingest_spans = {s.name for s in spans.get_finished_spans()}
    assert {"ingest", "ingest extract", "ingest write", "embed batch"} <= ingest_spans, ingest_spans
    spans.clear()
    with TestClient(create_app(settings)) as client:
        client.post("/v1/query", json={"question": "warm up", "answerer": "extractive"}, headers={"X-API-Key": KEY})
        spans.clear()  # the first request built the caches: the second is a query's usual trace
        response = client.post("/v1/query", json={"question": QUESTION, "answerer": "extractive"},
                               headers={"X-API-Key": KEY})  # fmt: skip
    assert response.status_code == 200, response.text
    # the request id is the trace id; the warm-up's server span may end (and be exported) after the clear
    trace_id = response.headers["X-Request-ID"]
    finished = [s for s in spans.get_finished_spans() if format(s.context.trace_id, "032x") == trace_id]
    [root] = [s for s in finished if s.parent is None]
    assert root.name == "POST /v1/query" and root.kind is trace.SpanKind.SERVER
    assert root.attributes is not None and root.attributes["http.response.status_code"] == 200
    assert root.attributes["graphwire.request_id"] == trace_id and root.attributes["graphwire.mode"] == "joint"
    by_id = {s.context.span_id: s for s in finished}
    [retrieve] = [s for s in finished if s.name == "retrieve"]
    assert ancestors(retrieve, by_id)[-1] == "POST /v1/query"  # under FastAPI's own endpoint span
    stage_names = {s.name for s in finished if ancestors(s, by_id)[:1] == ["retrieve"]}
    assert {"stage graph", "stage flat"} <= stage_names and all(n.startswith("stage ") for n in stage_names)
    graph_stages = {s.name for s in finished if ancestors(s, by_id)[:2] == ["stage graph", "retrieve"]}
    assert {"stage aliases", "stage matching", "stage templates"} <= graph_stages, graph_stages
    [answer] = [s for s in finished if s.name == "answer"]
    assert answer.attributes is not None and answer.attributes["graphwire.answer_status"] == "answered"
    statements = [s for s in finished if s.name.startswith("cypher ")]
    assert statements, [s.name for s in finished]
    for statement in statements:
        assert statement.name.removeprefix("cypher ") in cypher.names()
        assert "retrieve" in ancestors(statement, by_id) and ancestors(statement, by_id)[-1] == "POST /v1/query"
    # stage 3's two reads, one of them on a thread of its own, both under the stage's span
    in_templates = {s.name for s in statements if "stage templates" in ancestors(s, by_id)}
    assert {"cypher retrieve/facts", "cypher retrieve/candidates"} <= in_templates, in_templates
    values = [str(v) for s in finished for v in (s.attributes or {}).values()]
    assert not [v for v in values if QUESTION in v or KEY in v or "Paradigm" in v]


def test_llm_calls_tokens_errors_and_answers_move_by_what_the_request_cost(
    chains_graph: Graph, neo4j_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    openai_stub.fallback = lambda request: text('{"entities": []}' if "response_format" in request else
                                                "Insufficient information.")(request)  # fmt: skip
    openai_stub.script(server_error(500))  # the first call's first attempt fails; its retry gets the fallback
    settings = neo4j_settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state", "llm_model": MODEL,
                "llm_base_url": openai_stub.base_url, "llm_max_retries": 1, "llm_backoff_base_s": 0.01,
                "graph_fill_mode": "none"}
    )  # fmt: skip
    question = "Which company supplies the supplier of Kestrel Motors?"
    with TestClient(create_app(settings)) as client:
        before = scrape(client, key=None)
        response = client.post("/v1/query", json={"question": question, "mode": "graph", "answerer": "llm"})
        after = scrape(client, key=None)
    assert response.status_code == 200, response.text
    body = response.json()
    usage = body["usage"]
    assert usage["llm_calls"] >= 1 and body["answer_status"] == "abstained"
    assert moved(before, after, "graphwire_llm_calls_total", model=MODEL, outcome="ok") == usage["llm_calls"]
    assert moved(before, after, "graphwire_llm_calls_total", model=MODEL, outcome="error") == 1
    assert moved(before, after, "graphwire_llm_tokens_total", model=MODEL, kind="prompt") == usage["prompt_tokens"]
    completion = moved(before, after, "graphwire_llm_tokens_total", model=MODEL, kind="completion")
    assert completion == usage["completion_tokens"] > 0
    assert moved(before, after, "graphwire_llm_call_duration_seconds_count", model=MODEL) == usage["llm_calls"]
    assert moved(before, after, "graphwire_answers_total", answerer=f"llm:{MODEL}", status="abstained") == 1
