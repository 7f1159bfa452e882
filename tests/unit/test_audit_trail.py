"""The audit trail of document and graph writes (core/auth/audit.py) in the principal store: events with the actor's
id and name and the workspace, the target filter, stores made before those columns, a store it cannot write (the
write stands, the failure is logged), and the job store telling of every finished job with who posted it."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from graphwire.app.jobs.models import JobProgress, JobState
from graphwire.app.jobs.store import JobStore
from graphwire.core.auth.audit import StoreAuditTrail
from graphwire.core.auth.models import OPEN, Principal
from graphwire.core.auth.store import SqlitePrincipalStore

WENDY = Principal(id="p_wendy", name="wendy", via="key")


def test_events_carry_the_actor_and_workspace_and_filter_by_target(tmp_path: Path) -> None:
    store = SqlitePrincipalStore(tmp_path / "auth.sqlite")
    trail = StoreAuditTrail(store)
    trail.record(WENDY, [("document.add", "doc-1", {"job_id": "j1"}), ("document.add", "doc-2", {"job_id": "j1"})])
    trail.record(OPEN, [("document.delete", "doc-1", {"chunks": 3})])
    trail.record(WENDY, [])  # nothing to record: no row
    found = store.audit(target="doc-1")
    assert [(e.action, e.actor, e.actor_name, e.workspace) for e in found] == [
        ("document.delete", "anonymous", "anonymous", "default"),
        ("document.add", "p_wendy", "wendy", "default"),
    ]
    assert [e.target for e in store.audit(actor="p_wendy", action="document.")] == ["doc-2", "doc-1"]
    assert store.audit(target="doc-3") == []
    assert len(store.audit()) == 3


def test_a_store_made_before_the_new_columns_gains_them_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "auth.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, actor TEXT NOT NULL, "
                   "action TEXT NOT NULL, target TEXT NOT NULL, detail TEXT NOT NULL)")  # fmt: skip
        db.execute("INSERT INTO audit (at, actor, action, target, detail) VALUES "
                   "('2026-01-01T00:00:00.000000+00:00', 'local:ops', 'key.revoke', 'k1', '{}')")  # fmt: skip
    store = SqlitePrincipalStore(path)
    StoreAuditTrail(store).record(WENDY, [("graph.edit", "e1", {"kind": "merge"})])
    old, new = reversed(store.audit())
    assert (old.action, old.actor, old.actor_name, old.workspace) == ("key.revoke", "local:ops", None, None)
    assert (new.action, new.actor_name, new.workspace, new.detail) == ("graph.edit", "wendy", "default",
                                                                        {"kind": "merge"})  # fmt: skip


def test_an_unwritable_store_loses_the_event_not_the_write(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store's folder should be")
    trail = StoreAuditTrail(SqlitePrincipalStore(blocker / "auth.sqlite"))
    with caplog.at_level(logging.ERROR, logger="graphwire.audit"):
        trail.record(WENDY, [("document.delete", "doc-1", {})])  # does not raise
    assert "audit events not recorded" in caplog.text


def test_the_job_store_tells_of_each_finished_job_with_who_posted_it(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "state")
    told: list[tuple[str, JobState, Any]] = []
    store.on_finish = lambda job, submitted: told.append((job.job_id, job.state, submitted))
    who = {"actor": {"id": "p_wendy", "name": "wendy"}, "documents": ["doc-1"]}
    store.create("a", 1, [], who)
    store.create("b", 1, [], who)
    store.create("c", 1, [])  # posted before the audit existed: no one to name
    store.payload_path("a").write_text("{}")
    assert store.claim("a")
    store.finish("a", JobProgress(documents_total=1, documents_done=1), [])
    assert store.cancel_queued("b", "cancelled by a client")
    store.finish("c", JobProgress(), [], error="boom")
    assert told == [("a", JobState.SUCCEEDED, who), ("b", JobState.CANCELLED, who), ("c", JobState.FAILED, None)]
    job = store.get("a")
    assert job is not None and job.state == JobState.SUCCEEDED and not store.payload_path("a").exists()


def test_a_job_store_made_before_the_submitted_column_gains_it(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    with sqlite3.connect(folder / "jobs.sqlite") as db:
        db.execute("CREATE TABLE jobs (id TEXT PRIMARY KEY, state TEXT NOT NULL, created_at TEXT NOT NULL, "
                   "started_at TEXT, finished_at TEXT, progress TEXT NOT NULL, failures TEXT NOT NULL, error TEXT, "
                   "pid INTEGER)")  # fmt: skip
        db.execute("INSERT INTO jobs (id, state, created_at, progress, failures) VALUES "
                   "('old', 'queued', '2026-01-01T00:00:00+00:00', '{}', '[]')")  # fmt: skip
    store = JobStore(folder)
    told: list[Any] = []
    store.on_finish = lambda job, submitted: told.append((job.job_id, submitted))
    store.create("new", 1, [], {"actor": {"id": "p_wendy", "name": "wendy"}, "documents": []})
    store.finish("old", JobProgress(), [], error="lost")
    store.finish("new", JobProgress(), [])
    assert told == [("old", None), ("new", {"actor": {"id": "p_wendy", "name": "wendy"}, "documents": []})]
