"""What a feed watcher remembers per feed, durably, in SQLite under INGEST_STATE_PATH (`feeds.sqlite`, beside the
document jobs): the validators of the last answer read (ETag, Last-Modified) for the next conditional GET, the
fingerprint of every entry ingested, and how the last poll went (for `graphwire watch`, GET /v1/feeds and the
backoff after errors).

An entry's fingerprint is written only after the write that stored it committed: a process killed mid-poll ingests
the same entries again on its next poll (unchanged documents are skipped by the ingest itself).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graphwire.ingest.formats.fetch import Validators

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS feeds (
        url TEXT PRIMARY KEY, title TEXT, etag TEXT, last_modified TEXT, polled_at TEXT, ok_at TEXT, outcome TEXT,
        message TEXT, errors INTEGER NOT NULL DEFAULT 0, next_poll_at TEXT, job_id TEXT)""",
    """CREATE TABLE IF NOT EXISTS feed_entries (
        feed TEXT NOT NULL, entry TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (feed, entry))""",
)
_COLUMNS = ("url", "title", "etag", "last_modified", "polled_at", "ok_at", "outcome", "message", "errors",
            "next_poll_at", "job_id")  # fmt: skip


class FeedStatus(BaseModel):
    """One feed as its watcher last left it."""

    url: str = Field(description="The feed's URL, as configured.")
    title: str | None = Field(default=None, description="The feed's title, from its last answer read.")
    polled_at: datetime | None = Field(default=None, description="When it was last polled (UTC); null: never.")
    ok_at: datetime | None = Field(default=None, description="When a poll last succeeded (UTC).")
    outcome: str | None = Field(
        default=None, description="How the last poll went: ingested, unchanged, not_modified (a 304) or error."
    )
    message: str | None = Field(default=None, description="What the last poll did, or why it failed, in words.")
    errors: int = Field(default=0, description="Polls failed in a row (the backoff doubles the wait after each).")
    next_poll_at: datetime | None = Field(default=None, description="When it is polled next (UTC).")
    job_id: str | None = Field(default=None, description="The document job of its last ingest (GET /v1/jobs/{id}).")
    entries: int = Field(default=0, description="Entries ingested from it and remembered.")


class PollRecord(BaseModel):
    """What one poll changes in the state of its feed."""

    outcome: str
    message: str
    error: bool = False
    title: str | None = None
    validators: Validators | None = None  # None: keep those stored (an error, or entries left to retry: drop them)
    keep_validators: bool = True
    next_poll_at: datetime
    seen: dict[str, str] = Field(default_factory=dict)  # entry key -> fingerprint, ingested by this poll
    job_id: str | None = None


class FeedStateStore:
    def __init__(self, folder: Path) -> None:
        self._path = folder / "feeds.sqlite"
        self._lock = threading.Lock()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        with self._lock:  # `graphwire db reset` may remove the folder: each connection makes what is missing
            self._path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self._path, timeout=30)
            try:
                with db:
                    for statement in _SCHEMA:
                        db.execute(statement)
                    yield db
            finally:
                db.close()

    def status(self, url: str) -> FeedStatus:
        with self._connect() as db:
            row = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM feeds WHERE url = ?", (url,)).fetchone()  # noqa: S608
            entries = db.execute("SELECT COUNT(*) FROM feed_entries WHERE feed = ?", (url,)).fetchone()[0]
        if row is None:
            return FeedStatus(url=url)
        return FeedStatus(**dict(zip(_COLUMNS, row, strict=True)), entries=entries)

    def validators(self, url: str) -> Validators:
        with self._connect() as db:
            row = db.execute("SELECT etag, last_modified FROM feeds WHERE url = ?", (url,)).fetchone()
        return Validators(etag=row[0], last_modified=row[1]) if row else Validators()

    def fingerprints(self, url: str) -> dict[str, str]:
        with self._connect() as db:
            rows = db.execute("SELECT entry, fingerprint FROM feed_entries WHERE feed = ?", (url,)).fetchall()
        return dict(rows)

    def record(self, url: str, poll: PollRecord) -> None:
        """One poll's outcome, its entries and (when given) the answer's validators, in one transaction."""
        now = _now()
        values: dict[str, Any] = {"polled_at": now, "outcome": poll.outcome, "message": poll.message,
                                  "next_poll_at": poll.next_poll_at.isoformat(), "job_id": poll.job_id}  # fmt: skip
        if poll.title:
            values["title"] = poll.title
        if poll.validators is not None:
            values |= {"etag": poll.validators.etag, "last_modified": poll.validators.last_modified}
        elif not poll.keep_validators:
            values |= {"etag": None, "last_modified": None}
        with self._connect() as db:
            db.execute("INSERT OR IGNORE INTO feeds (url) VALUES (?)", (url,))
            errors = "errors + 1" if poll.error else "0"
            ok = "" if poll.error else ", ok_at = ?"
            assignments = ", ".join(f"{name} = ?" for name in values)  # column names are ours, never input
            db.execute(
                f"UPDATE feeds SET {assignments}, errors = {errors}{ok} WHERE url = ?",  # noqa: S608
                (*values.values(), *(() if poll.error else (now,)), url),
            )
            db.executemany(
                "INSERT OR REPLACE INTO feed_entries (feed, entry, fingerprint) VALUES (?, ?, ?)",
                [(url, key, fingerprint) for key, fingerprint in poll.seen.items()],
            )


def _now() -> str:
    return datetime.now(UTC).isoformat()
