"""The principal store's SQLite file: its tables, created on first use (with the columns added since, for a file made
before them), in WAL mode, safely when several processes open a new file at once."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS principals (
    id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, server_admin INTEGER NOT NULL,
    created_at TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0, subject TEXT UNIQUE
);
CREATE TABLE IF NOT EXISTS memberships (
    principal_id TEXT NOT NULL REFERENCES principals(id), group_name TEXT NOT NULL,
    PRIMARY KEY (principal_id, group_name)
);
CREATE TABLE IF NOT EXISTS grants (
    subject_kind TEXT NOT NULL, subject TEXT NOT NULL, workspace TEXT NOT NULL, role TEXT NOT NULL,
    PRIMARY KEY (subject_kind, subject, workspace)
);
CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, principal_id TEXT NOT NULL REFERENCES principals(id), hash TEXT NOT NULL,
    prefix TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT, last_used_at TEXT, revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
    target TEXT NOT NULL, detail TEXT NOT NULL, actor_name TEXT, workspace TEXT
);
CREATE INDEX IF NOT EXISTS audit_at ON audit (at);
"""
# columns added later: a store file made before them gains them when opened (a new file has them from the start)
AUDIT_COLUMNS = {"actor_name": "TEXT", "workspace": "TEXT"}
CREATE_ATTEMPTS = 20
CREATE_RETRY_S = 0.05  # times the attempt number: about 10 s in all


def create_store_file(path: Path) -> None:
    """Create or bring up to date the tables at `path`. Processes opening a new file at once (the API's workers) race
    for the switch to WAL, which SQLite refuses with "database is locked" at once instead of waiting on its busy
    timeout: the attempt is repeated."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(CREATE_ATTEMPTS):
        try:
            _create_once(path)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == CREATE_ATTEMPTS - 1:
                raise
            time.sleep(CREATE_RETRY_S * (attempt + 1))


def _create_once(path: Path) -> None:
    db = sqlite3.connect(path, timeout=30)
    try:
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
        present = {row[1] for row in db.execute("PRAGMA table_info(audit)")}
        for column, kind in AUDIT_COLUMNS.items():
            if column not in present:
                _add_column(db, column, kind)
        db.execute("CREATE INDEX IF NOT EXISTS audit_target ON audit (target)")
    finally:
        db.close()


def _add_column(db: sqlite3.Connection, column: str, kind: str) -> None:
    try:
        db.execute(f"ALTER TABLE audit ADD COLUMN {column} {kind}")
    except sqlite3.OperationalError as exc:  # another process opening the old file added it first
        if "duplicate column" not in str(exc):
            raise
