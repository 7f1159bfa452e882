"""Document jobs without Neo4j: the SQLite job store across a restart, the one-at-a-time runner, upload parsing."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from graphwire.app.errors import install_error_handlers
from graphwire.app.jobs.ingest_job import load_payload
from graphwire.app.jobs.models import JobFailure, JobProgress, JobState
from graphwire.app.jobs.runner import JobRunner, JobStopped
from graphwire.app.jobs.store import INTERRUPTED, JobStore
from graphwire.app.uploads import read_upload
from graphwire.core.stores.store_lock import WriterLock

RECORD = {"title": "Acme buys Beta", "body": "Acme Corp bought Beta Ltd on Monday.", "source": "Daily"}


def _payload(store: JobStore, job_id: str, records: list[object]) -> None:
    positions = list(range(len(records)))
    store.payload_path(job_id).write_text(json.dumps({"documents": records, "positions": positions}))


def _wait(predicate: object, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def test_a_job_left_running_by_a_dead_process_is_failed_with_the_reason_and_queued_ones_survive(
    tmp_path: Path,
) -> None:
    store = JobStore(tmp_path)
    for job_id in ("running", "queued"):
        _payload(store, job_id, [RECORD])
        store.create(job_id, 1, [])
    assert store.claim("running") and not store.claim("running")  # one process runs a job, never two
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    store._update("running", pid=int(dead.stdout))  # the job's process has exited

    reopened = JobStore(tmp_path)  # the API restarted
    assert reopened.recover() == ["queued"]
    failed = reopened.get("running")
    assert failed is not None and failed.state is JobState.FAILED and failed.error == INTERRUPTED
    assert failed.finished_at is not None and not reopened.payload_path("running").exists()
    queued = reopened.get("queued")
    assert queued is not None and queued.state is JobState.QUEUED and reopened.payload_path("queued").exists()


def test_jobs_run_one_at_a_time_in_order_and_a_failing_job_reports_why(tmp_path: Path) -> None:
    store = JobStore(tmp_path)
    release = threading.Event()
    ran: list[str] = []
    changes: list[str] = []

    def execute(job_id: str, payload: Path, progress: object, stopping: threading.Event) -> tuple[JobProgress, list]:
        ran.append(job_id)
        if job_id == "first":
            release.wait(10)
        if job_id == "broken":
            raise ValueError("the extractor exploded")
        done = JobProgress(documents_total=1, documents_done=1, chunks=2)
        return done, [JobFailure(position=3, title="t", reason="bad record")]

    runner = JobRunner(store, execute, on_change=lambda: changes.append("refresh"))
    for job_id in ("first", "second", "broken"):
        _payload(store, job_id, [RECORD])
        store.create(job_id, 1, [])
    runner.start()  # recover() hands it the three queued jobs, oldest first
    _wait(lambda: store.get("first").state is JobState.RUNNING)  # type: ignore[union-attr]
    assert store.get("second").state is JobState.QUEUED  # type: ignore[union-attr]  # one writer at a time
    release.set()
    _wait(lambda: store.get("broken").state is JobState.FAILED)  # type: ignore[union-attr]
    runner.stop()
    assert ran == ["first", "second", "broken"]
    second = store.get("second")
    assert second is not None and second.state is JobState.SUCCEEDED and second.progress.chunks == 2
    assert second.failures == [JobFailure(position=3, title="t", reason="bad record")]
    assert store.get("broken").error == "ValueError: the extractor exploded"  # type: ignore[union-attr]
    assert changes == ["refresh"] * 3  # the caches are told after every job, failed ones included


def test_a_job_stopped_by_shutdown_is_failed_with_the_reason(tmp_path: Path) -> None:
    store = JobStore(tmp_path)
    started = threading.Event()

    def execute(job_id: str, payload: Path, progress: object, stopping: threading.Event) -> tuple[JobProgress, list]:
        started.set()
        stopping.wait(10)
        raise JobStopped(job_id)

    runner = JobRunner(store, execute)
    _payload(store, "job", [RECORD])
    store.create("job", 1, [])
    runner.start()
    assert started.wait(10)
    runner.stop()
    job = store.get("job")
    assert job is not None and job.state is JobState.FAILED and "shut down" in (job.error or "")


def test_load_payload_reports_invalid_records_at_their_posted_positions(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    last = {**RECORD, "title": "Acme sells Beta"}
    records = [RECORD, {"title": "no body"}, {**RECORD, "title": "Second", "published_at": "not a date"}, last]
    path.write_text(json.dumps({"documents": records, "positions": [0, 2, 3, 5]}))
    loaded = load_payload(path)
    assert [position for position, _ in loaded.articles] == [0, 5]
    assert [(f.position, f.title) for f in loaded.failures] == [(2, "no body"), (3, "Second")]
    assert "body" in loaded.failures[0].reason and "published_at" in loaded.failures[1].reason


def _upload_app(max_bytes: int, max_documents: int) -> TestClient:
    """An app whose one route reads the body as POST /v1/documents does, and echoes what it read."""
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/upload")
    async def upload(request: Request) -> dict[str, object]:
        parsed = await read_upload(request, max_bytes=max_bytes, max_documents=max_documents)
        return {"records": parsed.records, "positions": parsed.positions,
                "failures": [f.model_dump() for f in parsed.failures]}  # fmt: skip

    return TestClient(app)


@pytest.fixture()
def upload_client() -> TestClient:
    return _upload_app(max_bytes=2_000, max_documents=3)


def test_uploads_in_the_three_forms(upload_client: TestClient) -> None:
    as_json = upload_client.post("/upload", json={"documents": [RECORD, RECORD]}).json()
    assert as_json["records"] == [RECORD, RECORD] and as_json["positions"] == [0, 1]
    assert upload_client.post("/upload", json=[RECORD]).json()["records"] == [RECORD]  # a corpus.json list

    lines = f"{json.dumps(RECORD)}\n\n{{not json\n{json.dumps(RECORD)}\n"
    jsonl = upload_client.post("/upload", content=lines, headers={"Content-Type": "application/x-ndjson"}).json()
    assert jsonl["positions"] == [0, 2] and jsonl["failures"][0]["position"] == 1
    assert "invalid JSON" in jsonl["failures"][0]["reason"]

    files = {"file": ("corpus.jsonl", json.dumps(RECORD) + "\n", "application/octet-stream")}
    assert upload_client.post("/upload", files=files).json()["records"] == [RECORD]
    own = {**RECORD, "access": ["legal"]}
    files = {"file": ("corpus.jsonl", f"{json.dumps(RECORD)}\n{json.dumps(own)}\n", "application/octet-stream")}
    shared = upload_client.post("/upload", files=files, data={"access": "finance, ana@corp.example"}).json()
    assert shared["records"] == [{**RECORD, "access": ["ana@corp.example", "finance"]}, own]  # a record's own wins


@pytest.mark.parametrize(
    ("kwargs", "status", "fragment"),
    [
        ({"content": "x", "headers": {"Content-Type": "text/plain"}}, 415, "not accepted"),
        ({"content": "{", "headers": {"Content-Type": "application/json"}}, 422, "invalid JSON"),
        ({"json": {"records": []}}, 422, "expected"),
        ({"json": {"documents": []}}, 422, "no documents"),
        ({"json": {"documents": [RECORD] * 4}}, 413, "limit is 3"),
        ({"json": {"documents": [{"title": "x" * 3_000, "body": "y"}]}}, 413, "larger than 2000 bytes"),
        ({"files": {"file": ("corpus.csv", "a,b", "text/csv")}}, 422, ".json or .jsonl"),
        ({"files": {"other": ("corpus.json", "[]", "application/json")}}, 422, "field named 'file'"),
        ({"files": {"file": ("c.json", "[]", "application/json")}, "data": {"access": "a b"}}, 422, "access entry"),
    ],
)
def test_bad_uploads_are_clear_4xx(upload_client: TestClient, kwargs: dict, status: int, fragment: str) -> None:
    response = upload_client.post("/upload", **kwargs)
    assert response.status_code == status, response.text
    assert fragment in response.json()["error"]["message"]


def test_a_job_waits_for_another_process_that_holds_the_writer_lock(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path / "writer.lock", "bolt://127.0.0.1:7687/neo4j")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(lock.path)], stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    store = JobStore(tmp_path / "state")
    runner = JobRunner(store, lambda *_: (JobProgress(documents_done=1), []), store_lock=lock.hold)
    _payload(store, "job", [RECORD])
    store.create("job", 1, [])
    runner.start()
    time.sleep(0.5)
    assert store.get("job").state is JobState.QUEUED  # type: ignore[union-attr]  # not started while the CLI writes
    holder.communicate("done\n", timeout=10)  # the other writer finishes
    _wait(lambda: store.get("job").state is JobState.SUCCEEDED)  # type: ignore[union-attr]
    runner.stop()


HOLD_LOCK = """
import fcntl, sys
handle = open(sys.argv[1], "a+")
fcntl.flock(handle, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.fixture()
def roomy_upload_client() -> TestClient:
    return _upload_app(max_bytes=2_000_000, max_documents=10)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),  # was a 500 (RecursionError)
        ('{"documents": [{"title": "t", "body": "b", "count": ' + "9" * 5_000 + "}]}", "5000 digits"),  # was a 500
    ],
)
def test_json_that_python_cannot_read_is_a_422_not_a_500(
    roomy_upload_client: TestClient, body: str, fragment: str
) -> None:
    response = roomy_upload_client.post("/upload", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and fragment in response.json()["error"]["message"]


def test_a_jsonl_line_python_cannot_read_fails_at_its_position_only(roomy_upload_client: TestClient) -> None:
    lines = "\n".join(
        [
            json.dumps(RECORD),
            "[" * 50_000 + "]" * 50_000,
            '{"title": "t", "body": "b", "n": ' + "1" * 5_000 + "}",
            json.dumps(RECORD),
        ]  # fmt: skip
    )
    response = roomy_upload_client.post("/upload", content=lines, headers={"Content-Type": "application/x-ndjson"})
    assert response.status_code == 200, response.text  # the good lines stay; was a 500 for the whole upload
    body = response.json()
    assert body["positions"] == [0, 3]
    assert [(f["position"], f["reason"]) for f in body["failures"]] == [
        (1, "invalid JSON: nested too deeply"),
        (2, "an integer of 5000 digits (at most 40)"),
    ]


def test_the_job_store_starts_anew_when_its_folder_is_removed_under_it(tmp_path: Path) -> None:
    """`graphwire db reset --yes` beside a running API removes INGEST_STATE_PATH: the next calls work again."""
    import shutil

    store = JobStore(tmp_path / "state")
    _payload(store, "before", [RECORD])
    store.create("before", 1, [])
    shutil.rmtree(tmp_path / "state")

    assert store.get("before") is None  # was sqlite3.OperationalError (a 500 on GET /v1/jobs/{id})
    _payload(store, "after", [RECORD])  # was FileNotFoundError (a 500 on POST /v1/documents)
    created = store.create("after", 1, [])
    assert created.state is JobState.QUEUED and store.get("after") == created


def test_a_duplicate_is_named_by_the_position_it_repeats_not_by_the_jobs_file(tmp_path: Path) -> None:
    path = tmp_path / "3f2a.json"
    records = [RECORD, {**RECORD, "title": "Other"}, RECORD]
    path.write_text(json.dumps({"documents": records, "positions": [4, 6, 9]}))
    [failure] = load_payload(path).failures
    assert failure.position == 9 and "position 4" in failure.reason and "3f2a.json" not in failure.reason


def test_a_queued_job_is_cancelled_at_once_and_a_running_one_at_its_next_batch(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "state")
    started, batches = threading.Event(), []

    def execute(job_id: str, payload: Path, progress: object, stopping: threading.Event) -> tuple[JobProgress, list]:
        started.set()
        for batch in range(500):  # the ingest loop's shape: a batch, then a look at the stop flag
            batches.append(batch)
            time.sleep(0.01)
            if stopping.is_set():
                raise JobStopped(job_id)
        return JobProgress(documents_total=1, documents_done=1), []

    runner = JobRunner(store, execute)
    for job_id in ("running", "waiting"):
        _payload(store, job_id, [RECORD])
        store.create(job_id, 1, [])
        runner.submit(job_id)
    runner.start()
    assert started.wait(10)
    runner.cancel("waiting")  # queued behind the first: cancelled without running
    waiting = store.get("waiting")
    assert waiting is not None and waiting.state is JobState.CANCELLED and "cancelled" in (waiting.error or "")
    assert not store.payload_path("waiting").exists()

    runner.cancel("running")
    _wait(lambda: (job := store.get("running")) is not None and job.state is JobState.CANCELLED)
    runner.stop()
    cancelled = store.get("running")
    assert cancelled is not None and "committed before it stopped are kept" in (cancelled.error or "")
    assert len(batches) < 500  # it stopped at a batch boundary, long before the end
    assert [j.job_id for j in store.jobs(JobState.CANCELLED)] == ["waiting", "running"]  # newest first
    assert store.jobs(JobState.QUEUED) == [] and len(store.jobs()) == 2


def test_a_document_over_the_character_limit_fails_at_its_position_and_the_rest_load(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    long_record = {**RECORD, "title": "Long", "body": "word " * 30}
    path.write_text(json.dumps({"documents": [RECORD, long_record], "positions": [0, 1]}))
    loaded = load_payload(path, max_chars=100)
    assert [position for position, _ in loaded.articles] == [0]
    [failure] = loaded.failures
    assert (failure.position, failure.title) == (
        1,
        "Long",
    ) and "149 characters; the limit is 100" in failure.reason  # the body is stripped
    assert len(load_payload(path).articles) == 2  # no limit given: both
