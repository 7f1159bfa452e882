"""The documents API over real Neo4j and Chroma (a folder, and a Chroma server): a posted document is answerable by
the next query (no restart), listed, readable with its entities, deletable; bad uploads are clear 4xx errors that
store nothing."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from support.chroma_server import on_chroma
from support.jobs import wait_for_job

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.models import ABSTENTION

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"
QUESTION = "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?"
ROUND, CEO = 0, 1  # demo records: Paradigm invests in Lumen Labs (Circuit Weekly), Ada Park named CEO (Ledger Daily)


def demo_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]


def ppr_titles(client: TestClient) -> set[str]:
    """Titles of the chunks `ppr` ranks: read from the process's PPR snapshot, which only a refresh rebuilds here."""
    response = client.post("/v1/retrieve", json={"question": QUESTION, "mode": "ppr"})
    assert response.status_code == 200, response.text
    return {c["title"] for c in response.json()["chunks"]}


def ask(client: TestClient) -> dict[str, Any]:
    response = client.post("/v1/query", json={"question": QUESTION, "answerer": "extractive"})
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.fixture(params=["folder", "server"])
def client(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[TestClient]:
    """The app over real Neo4j, with Chroma in a folder or on a Chroma server (`chroma run`, CHROMA_HOST set)."""
    settings = neo4j_settings.model_copy(
        update={
            "chroma_path": tmp_path / "chroma",
            "ingest_state_path": tmp_path / "state",
            "upload_max_bytes": 200_000,
            # graph retrieval alone, whose caches would not look at the graph again for an hour: only the jobs'
            # and deletes' refresh makes the next query see them
            "ppr_snapshot_check_s": 3600.0,
            "graph_fill_mode": "none",
        }
    )
    settings = on_chroma(request.param, settings, request)
    with TestClient(create_app(settings)) as client:
        yield client


def test_a_posted_document_is_answerable_listed_readable_and_deletable(client: TestClient) -> None:
    records = demo_records()
    assert ask(client)["answer"] == ABSTENTION and ppr_titles(client) == set()  # the empty graph knows nothing

    posted = client.post("/v1/documents", json={"documents": [records[ROUND], records[CEO], {"title": "no body"}]})
    assert posted.status_code == 202, posted.text
    assert posted.json()["state"] == "queued" and posted.json()["documents"] == 3
    job = wait_for_job(client, posted.json()["job_id"])
    assert job["state"] == "succeeded" and job["error"] is None and job["finished_at"]
    [failure] = job["failures"]
    assert (failure["position"], failure["title"]) == (2, "no body") and "body" in failure["reason"]
    progress = job["progress"]
    assert (progress["documents_total"], progress["documents_done"]) == (3, 2)
    assert progress["chunks"] >= 2 and progress["chunks_per_s"] > 0

    body = ask(client)  # the next query, same process: the caches were told
    assert body["answer"] == "Ada Park" and records[CEO]["title"] in ppr_titles(client)
    assert records[CEO]["title"] in {c["title"] for c in body["citations"]}

    listed = client.get("/v1/documents").json()
    assert listed["total"] == 2
    assert [i["title"] for i in listed["items"]] == [records[CEO]["title"], records[ROUND]["title"]]  # newest first
    assert all(i["chunks"] >= 1 and i["id"] == i["url"] for i in listed["items"])
    assert client.get("/v1/documents", params={"source": "Circuit Weekly"}).json()["total"] == 1
    after = client.get("/v1/documents", params={"published_after": "2026-03-03"}).json()["items"]
    assert [i["title"] for i in after] == [records[CEO]["title"]]
    page = client.get("/v1/documents", params={"limit": 1, "offset": 1}).json()
    assert page["total"] == 2 and [i["title"] for i in page["items"]] == [records[ROUND]["title"]]

    path = "/v1/documents/" + quote(records[CEO]["url"], safe="")
    detail = client.get(path).json()
    assert detail["title"] == records[CEO]["title"] and detail["committed"] and detail["chunks"] >= 1
    assert {"name": "Lumen Labs", "label": "Organization", "mentions": 2} in detail["entities"]

    deleted = client.delete(path)
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["id"] == records[CEO]["url"] and deleted.json()["deleted"] is True
    assert client.get(path).status_code == 404
    assert client.delete(path).status_code == 404
    assert ask(client)["answer"] != "Ada Park"  # the CEO article is gone from graph, vectors and caches
    assert records[CEO]["title"] not in ppr_titles(client)
    assert client.get("/v1/documents").json()["total"] == 1


def test_jsonl_and_multipart_uploads_report_bad_records_by_position(client: TestClient) -> None:
    records = demo_records()
    lines = "\n".join([json.dumps(records[2]), "{broken", json.dumps({"title": "x", "body": "y", "published_at": "?"})])
    posted = client.post("/v1/documents", content=lines, headers={"Content-Type": "application/x-ndjson"})
    assert posted.status_code == 202, posted.text
    job = wait_for_job(client, posted.json()["job_id"])
    assert job["state"] == "succeeded" and [f["position"] for f in job["failures"]] == [1, 2]
    assert "invalid JSON" in job["failures"][0]["reason"] and "published_at" in job["failures"][1]["reason"]

    files = {"file": ("corpus.json", json.dumps([records[3]]), "application/json")}
    job = wait_for_job(client, client.post("/v1/documents", files=files).json()["job_id"])
    assert job["state"] == "succeeded" and job["failures"] == []
    assert {i["title"] for i in client.get("/v1/documents").json()["items"]} == {
        records[2]["title"],
        records[3]["title"],
    }


def test_bad_uploads_store_nothing(client: TestClient) -> None:
    before = client.get("/v1/documents").json()["total"]
    invalid = client.post("/v1/documents", json={"documents": [{"title": "no body"}, {"body": "no title"}]})
    assert invalid.status_code == 422 and "none of the posted records" in invalid.json()["error"]["message"]
    assert [d["position"] for d in invalid.json()["error"]["details"]] == [0, 1]
    too_big = client.post("/v1/documents", json={"documents": [{"title": "t", "body": "b" * 300_000}]})
    assert too_big.status_code == 413
    assert client.post("/v1/documents", content="title,body", headers={"Content-Type": "text/csv"}).status_code == 415
    assert client.get("/v1/jobs/not-a-job").status_code == 404
    assert client.get("/v1/documents").json()["total"] == before


def test_jobs_are_listed_and_a_finished_one_cannot_be_cancelled(client: TestClient) -> None:
    records = demo_records()
    posted = client.post("/v1/documents", json={"documents": [records[ROUND]]})
    job = wait_for_job(client, posted.json()["job_id"])
    assert job["state"] == "succeeded"

    listed = client.get("/v1/jobs", params={"state": "succeeded"}).json()
    assert job["job_id"] in [j["job_id"] for j in listed]
    assert client.get("/v1/jobs", params={"state": "queued"}).json() == []
    assert client.get("/v1/jobs", params={"state": "sleeping"}).status_code == 422

    finished = client.post(f"/v1/jobs/{job['job_id']}/cancel")
    assert finished.status_code == 409 and "already finished" in finished.json()["error"]["message"]
    assert client.post("/v1/jobs/no-such-job/cancel").status_code == 404


def test_a_delete_during_a_write_is_a_409_naming_the_job_and_an_unknown_id_is_a_404_at_once(
    client: TestClient,
) -> None:
    record = demo_records()[ROUND]
    job = wait_for_job(client, client.post("/v1/documents", json={"documents": [record]}).json()["job_id"])
    assert job["state"] == "succeeded"
    runner = client.app.state.document_writes.runner  # type: ignore[attr-defined]
    path = "/v1/documents/" + quote(record["url"], safe="")
    with runner._write_lock:  # a job is writing (as the runner holds it for one)
        runner._running = ("job-that-writes", threading.Event())
        try:
            started = time.monotonic()
            unknown = client.delete("/v1/documents/no-such-document")
            assert unknown.status_code == 404 and time.monotonic() - started < 3  # no wait for the lock
            started = time.monotonic()
            busy = client.delete(path)
            waited = time.monotonic() - started
        finally:
            runner._running = None
    assert busy.status_code == 409 and "document job job-that-writes is writing" in busy.json()["error"]["message"]
    assert waited < 30  # DELETE_LOCK_WAIT_S (5 s), not REQUEST_TIMEOUT_S (180 s)
    assert client.delete(path).status_code == 200  # once the write is over
