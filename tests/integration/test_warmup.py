"""The startup warm-up (RetrievalContext.warm, run by Services.start in a thread): GET /health/ready answers 503 with
a `warming` check until it has finished, then as before; by then the default mode's indexes, snapshot and models are
built, so the first question does not build them. A failed step is logged and recorded and the warm-up still ends."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.health import poll_ready

import graphwire.core.nlp as nlp
from graphwire.app.main import create_app
from graphwire.core.clients.embeddings import OnnxEmbedder, embedder_from_settings
from graphwire.core.settings import Settings, StartupWarmup
from graphwire.retrieval.flat.plus import FlatPlusRetriever
from graphwire.retrieval.joint import JointRetriever
from graphwire.retrieval.registry import DEFAULT_MODE, RetrievalContext

QUESTION = "Who is the chief executive of the company Paradigm Ventures invested in?"


@pytest.fixture
def gated_nlp(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The warm-up's NER step waits for the returned event (then runs the real pipeline): the test sees the
    service while it warms, however fast this machine warms the demo store."""
    gate = threading.Event()
    real: Callable[[Sequence[str]], list[Any]] = nlp.ner_docs

    def gated(texts: Sequence[str]) -> list[Any]:
        if threading.current_thread().name == "graphwire-warm":
            gate.wait(timeout=120)
        return real(texts)

    monkeypatch.setattr(nlp, "ner_docs", gated)
    yield gate
    gate.set()


def test_unready_while_warming_then_ready_with_the_first_question_s_state_built(
    demo_settings: Settings, gated_nlp: threading.Event
) -> None:
    app = create_app(demo_settings)
    with TestClient(app) as client:
        retrieval: RetrievalContext = app.state.retrieval
        warming = client.get("/health/ready")
        assert warming.status_code == 503 and warming.headers["Retry-After"], warming.text
        check = warming.json()["checks"]["warming"]
        assert check["status"] == "error" and check["reason"].startswith("warming up"), check
        assert warming.json()["checks"]["neo4j"]["status"] == "ok"
        assert client.get("/health/live").json() == {"status": "ok"}  # liveness does not wait
        assert retrieval.warmup.running

        gated_nlp.set()
        ready = poll_ready(client, 200)
        assert ready.status_code == 200, ready.text
        checks = ready.json()["checks"]
        assert set(checks) == {"neo4j", "chroma", "schema", "caches"}  # no `warming` check once it has finished
        warmup = checks["caches"]["details"]["warmup"]
        assert warmup["state"] == "finished" and warmup["errors"] == {}, warmup
        assert {"name_index", "chunk_cache", "ppr_snapshot", "flat_index", "embeddings", "nlp", "question"} <= set(
            warmup["steps_ms"]
        )

        # what the first question would have built is built: inspected, not timed
        services = retrieval.services()
        names = services.names.current
        assert names is not None and len(names) > 0
        assert services.snapshots.current is not None and services.snapshots.walks() >= 1
        joint = retrieval.retriever(DEFAULT_MODE)
        assert isinstance(joint, JointRetriever)
        flat = retrieval.flat_retrievers()["flat_plus"]
        assert isinstance(flat, FlatPlusRetriever) and flat.index is joint.flat.index
        assert flat.index.current is not None and len(flat.index.current) > 0
        embedder = embedder_from_settings(demo_settings)
        assert isinstance(embedder, OnnxEmbedder) and embedder.loaded
        assert nlp.ner_loaded()
        builds = services.snapshots.builds

        answer = client.post("/v1/query", json={"question": QUESTION})
        assert answer.status_code == 200, answer.text
        assert answer.json()["timings_ms"], answer.json()  # the per-stage timings stay in the response
        assert services.snapshots.builds == builds  # the question read the snapshot the warm-up exported
        assert flat.index.current is not None and services.names.current is names


def test_a_failed_warm_step_is_reported_and_the_warm_up_still_ends(demo_settings: Settings, tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the vector store's folder should be\n")
    settings = demo_settings.model_copy(update={"chroma_path": blocked / "chroma"})
    app = create_app(settings)
    with TestClient(app) as client:
        retrieval: RetrievalContext = app.state.retrieval
        assert retrieval.warmup.wait(timeout_s=240)  # it ends, whatever failed
        errors = retrieval.warmup.summary()["errors"]
        assert "flat_index" in errors, errors
        assert {"name_index", "ppr_snapshot"}.isdisjoint(errors)  # the other steps ran
        assert retrieval.services().names.current is not None

        response = client.get("/health/ready")
        checks = response.json()["checks"]
        assert "warming" not in checks  # never unready because of the warm-up once it has ended
        assert checks["chroma"]["status"] == "error"  # the store itself reported as before: unready for it
        assert checks["neo4j"]["status"] == checks["schema"]["status"] == "ok"
        assert checks["caches"]["details"]["warmup"]["errors"]["flat_index"] == errors["flat_index"]
        assert response.status_code == 503


def test_background_warm_up_does_not_hold_readiness(demo_settings: Settings, gated_nlp: threading.Event) -> None:
    app = create_app(demo_settings.model_copy(update={"startup_warmup": StartupWarmup.BACKGROUND}))
    with TestClient(app) as client:
        assert app.state.retrieval.warmup.running
        response = poll_ready(client, 200)
        assert response.status_code == 200 and "warming" not in response.json()["checks"], response.text
        assert app.state.retrieval.warmup.running  # ready while the (gated) warm-up still runs
        gated_nlp.set()
        assert app.state.retrieval.warmup.wait(timeout_s=240)


def test_no_warm_up_when_off_and_the_first_question_builds_what_it_reads(demo_settings: Settings) -> None:
    app = create_app(demo_settings.model_copy(update={"startup_warmup": StartupWarmup.OFF}))
    with TestClient(app) as client:
        retrieval: RetrievalContext = app.state.retrieval
        assert not retrieval.warmup.running and not retrieval.warmup.finished  # never started
        ready = poll_ready(client, 200)
        assert ready.status_code == 200 and "warmup" not in ready.json()["checks"]["caches"]["details"], ready.text
        flat = retrieval.flat_retrievers()["flat_plus"]
        assert isinstance(flat, FlatPlusRetriever) and flat.index.current is None  # nothing built it yet
        assert client.post("/v1/query", json={"question": QUESTION}).status_code == 200
        assert flat.index.current is not None
