"""Document jobs persisted in SQLite under INGEST_STATE_PATH (`jobs.sqlite`, payloads in `jobs/<id>.json`).

The API process may be killed at any moment; the store is what survives it. On start `recover()` turns a job left
`running` by a process that is gone into `failed` with the reason (what it committed stays in the graph; posting the
same documents again finishes the rest, unchanged ones are skipped) and returns the `queued` ones so they run.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphwire.app.jobs.models import FINISHED, Job, JobFailure, JobProgress, JobState
from graphwire.core.stores.processes import pid_alive

log = logging.getLogger(__name__)
INTERRUPTED = (
    "interrupted: the API process stopped while this job was running; documents it committed are kept, post the "
    "same documents again to finish the rest (unchanged ones are skipped)"
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    progress TEXT NOT NULL,
    failures TEXT NOT NULL,
    error TEXT,
    pid INTEGER,
    submitted TEXT
)
"""
# who posted the job and the ids of its documents, for the audit of its outcome (never the documents themselves)
Submitted = dict[str, Any]
FinishHook = Callable[[Job, Submitted | None], None]


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _pid_alive(pid: int | None) -> bool:
    if not pid or pid == os.getpid():
        return False  # our own pid: a restarted process that reuses it cannot be running the old job
    return pid_alive(pid)


class JobStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.payloads = folder / "jobs"
        self._path = folder / "jobs.sqlite"
        self._lock = threading.Lock()
        self.on_finish: FinishHook | None = None  # told of every job that reaches a final state
        with self._connect() as db:
            db.execute(_SCHEMA)
            if "submitted" not in {row[1] for row in db.execute("PRAGMA table_info(jobs)")}:  # a store made before
                db.execute("ALTER TABLE jobs ADD COLUMN submitted TEXT")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            # `graphwire db reset` removes the whole state folder, also beside a running API: start a new store
            # instead of failing every later call (the jobs it held went with the store they described)
            fresh = not self._path.exists()
            if fresh:
                self.payloads.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self._path, timeout=30)
            if fresh:
                db.execute(_SCHEMA)
            try:
                with db:
                    yield db
            finally:
                db.close()

    def payload_path(self, job_id: str) -> Path:
        self.payloads.mkdir(parents=True, exist_ok=True)
        return self.payloads / f"{job_id}.json"

    def create(
        self, job_id: str, documents: int, failures: list[JobFailure], submitted: Submitted | None = None
    ) -> Job:
        """A queued job; its payload must already be at `payload_path(job_id)`."""
        progress = JobProgress(documents_total=documents)
        who = json.dumps(submitted) if submitted is not None else None
        with self._connect() as db:
            db.execute(
                "INSERT INTO jobs (id, state, created_at, progress, failures, submitted) VALUES (?, ?, ?, ?, ?, ?)",
                (job_id, JobState.QUEUED.value, _now(), progress.model_dump_json(), _dump(failures), who),
            )
        job = self.get(job_id)
        assert job is not None
        return job

    def get(self, job_id: str) -> Job | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return _job(row) if row else None

    def claim(self, job_id: str) -> bool:
        """Mark a queued job running in this process; False when it is not queued (another process took it)."""
        with self._connect() as db:
            cursor = db.execute(
                "UPDATE jobs SET state = ?, started_at = ?, pid = ? WHERE id = ? AND state = ?",
                (JobState.RUNNING.value, _now(), os.getpid(), job_id, JobState.QUEUED.value),
            )
        return cursor.rowcount == 1

    def progress(self, job_id: str, progress: JobProgress) -> None:
        self._update(job_id, progress=progress.model_dump_json())

    def jobs(self, state: JobState | None = None, limit: int = 50) -> list[Job]:
        """The newest jobs first, optionally in one state."""
        query = "SELECT * FROM jobs" + (" WHERE state = ?" if state is not None else "")
        args: tuple[str, ...] = (state.value,) if state is not None else ()
        with self._connect() as db:
            rows = db.execute(f"{query} ORDER BY created_at DESC LIMIT ?", (*args, limit)).fetchall()  # noqa: S608
        return [_job(row) for row in rows]

    def counts(self) -> dict[str, float]:
        """Jobs per state, every state named (0 when none): the `graphwire_document_jobs` gauge."""
        with self._connect() as db:
            found = dict(db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall())
        return {state.value: float(found.get(state.value, 0)) for state in JobState}

    def cancel_queued(self, job_id: str, reason: str) -> bool:
        """Cancel a job that has not started; False when it is not queued (running, finished or unknown)."""
        with self._connect() as db:
            cursor = db.execute(
                "UPDATE jobs SET state = ?, finished_at = ?, error = ? WHERE id = ? AND state = ?",
                (JobState.CANCELLED.value, _now(), reason, job_id, JobState.QUEUED.value),
            )
        if cursor.rowcount == 1:
            self.payload_path(job_id).unlink(missing_ok=True)
            self._finished(job_id)
        return cursor.rowcount == 1

    def finish(
        self,
        job_id: str,
        progress: JobProgress,
        failures: list[JobFailure],
        error: str | None = None,
        cancelled: bool = False,
    ) -> None:
        state = JobState.CANCELLED if cancelled else JobState.FAILED if error else JobState.SUCCEEDED
        finished_at = _now()
        # the hook (the audit of the outcome) runs first: whoever sees the job finished finds its outcome audited
        update = {"state": state, "finished_at": datetime.fromisoformat(finished_at), "progress": progress,
                  "failures": failures, "error": error}  # fmt: skip
        self._finished(job_id, update)
        self._update(
            job_id, state=state.value, finished_at=finished_at, progress=progress.model_dump_json(),
            failures=_dump(failures), error=error,
        )  # fmt: skip
        self.payload_path(job_id).unlink(missing_ok=True)

    def _finished(self, job_id: str, update: dict[str, Any] | None = None) -> None:
        """Tell `on_finish` of the job as it is (or will be, with `update`); a failure of the hook is logged."""
        if self.on_finish is None:
            return
        with self._connect() as db:
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            return
        submitted = row[-1]
        job = _job(row).model_copy(update=update or {})
        try:
            self.on_finish(job, json.loads(submitted) if submitted else None)
        except Exception:
            log.exception("the job's finish hook failed", extra={"job_id": job_id})

    def recover(self) -> list[str]:
        """Fail the jobs a dead process left running; return the queued ones, oldest first."""
        with self._connect() as db:
            rows = db.execute("SELECT id, state, pid FROM jobs WHERE state IN (?, ?) ORDER BY created_at",
                              (JobState.QUEUED.value, JobState.RUNNING.value)).fetchall()  # fmt: skip
        queued = []
        for job_id, state, pid in rows:
            if state == JobState.RUNNING.value and not _pid_alive(pid):
                self._fail(job_id, INTERRUPTED)
            elif state == JobState.QUEUED.value:
                if self.payload_path(job_id).exists():
                    queued.append(job_id)
                else:
                    self._fail(job_id, "the job's posted documents were lost before it ran; post them again")
        return queued

    def _fail(self, job_id: str, error: str) -> None:
        job = self.get(job_id)
        if job is not None and job.state not in FINISHED:
            self.finish(job_id, job.progress, job.failures, error)

    def _update(self, job_id: str, **columns: Any) -> None:
        assignments = ", ".join(f"{name} = ?" for name in columns)  # column names are ours, never input
        with self._connect() as db:
            db.execute(f"UPDATE jobs SET {assignments} WHERE id = ?", (*columns.values(), job_id))  # noqa: S608


def _dump(failures: list[JobFailure]) -> str:
    return json.dumps([f.model_dump() for f in failures])


def _job(row: tuple[Any, ...]) -> Job:
    job_id, state, created_at, started_at, finished_at, progress, failures, error, *_ = row
    return Job(
        job_id=job_id,
        state=JobState(state),
        created_at=datetime.fromisoformat(created_at),
        started_at=datetime.fromisoformat(started_at) if started_at else None,
        finished_at=datetime.fromisoformat(finished_at) if finished_at else None,
        progress=JobProgress.model_validate_json(progress),
        failures=[JobFailure.model_validate(f) for f in json.loads(failures)],
        error=error,
    )
