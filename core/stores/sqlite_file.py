"""One way to open a SQLite cache file that several threads share (the extraction cache, the vector cache)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_shared(path: Path | str, schema: str) -> sqlite3.Connection:
    """A connection to the file at `path` (or ":memory:") for use under the caller's lock from any thread: its folder
    made, the WAL journal on, `schema` (idempotent statements) applied."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), check_same_thread=False, timeout=30.0)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(schema)
    db.commit()
    return db
