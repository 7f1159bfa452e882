"""The principal store: principals, group memberships, role grants, API keys (hashes only) and the audit log, behind
one interface (`PrincipalStore`) with one implementation in SQLite (AUTH_STORE_PATH).

Every change is written with its audit event in the same transaction, so no change goes unaudited. Several API
workers share the file: each call is one transaction, read-modify-write ones `BEGIN IMMEDIATE`, and the file is in WAL
mode so that the reads of every request do not wait for a write.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from graphwire.core.auth.keys import PlainKey, hash_secret
from graphwire.core.auth.models import (
    ApiKeyRecord,
    AuditEvent,
    Grant,
    PrincipalKind,
    PrincipalRecord,
    Role,
    SubjectKind,
)
from graphwire.core.auth.store_file import create_store_file

_AUDIT_SELECT = "id, at, actor, actor_name, workspace, action, target, detail"
_KEY_COLUMNS = "id, principal_id, prefix, created_at, expires_at, last_used_at, revoked_at"
_PRINCIPAL_COLUMNS = "id, name, kind, server_admin, created_at, disabled, subject"


class PrincipalNotFound(LookupError):
    pass


class PrincipalConflict(ValueError):
    """A name or OIDC subject already taken, or a server admin already bootstrapped."""


def stamp(moment: datetime) -> str:
    """Fixed-width UTC text, so that stored times compare as strings."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def now() -> datetime:
    return datetime.now(UTC)


class PrincipalStore(Protocol):
    """What the API and `graphwire auth` need of a principal store. `actor` is who makes a change: the audit log's."""

    def add_principal(
        self, actor: str, name: str, kind: PrincipalKind, server_admin: bool = False, subject: str | None = None
    ) -> PrincipalRecord: ...
    def add_first_admin(self, actor: str, name: str, kind: PrincipalKind) -> PrincipalRecord: ...
    def principal(self, ref: str) -> PrincipalRecord | None: ...
    def principal_by_subject(self, subject: str) -> PrincipalRecord | None: ...
    def principals(self) -> list[PrincipalRecord]: ...
    def set_disabled(self, actor: str, principal_id: str, disabled: bool) -> PrincipalRecord: ...
    def add_member(self, actor: str, principal_id: str, group: str) -> None: ...
    def remove_member(self, actor: str, principal_id: str, group: str) -> bool: ...
    def grant(self, actor: str, grant: Grant) -> None: ...
    def revoke_grant(self, actor: str, subject_kind: SubjectKind, subject: str, workspace: str) -> bool: ...
    def grants(self) -> list[Grant]: ...
    def roles_for(self, principal_id: str | None, groups: tuple[str, ...]) -> dict[str, Role]: ...
    def add_key(self, actor: str, principal_id: str, key: PlainKey, expires_at: datetime | None) -> ApiKeyRecord: ...
    def key_for_check(self, key_id: str) -> tuple[ApiKeyRecord, str] | None: ...
    def keys(self, principal_id: str | None = None) -> list[ApiKeyRecord]: ...
    def revoke_key(self, actor: str, key_id: str) -> ApiKeyRecord: ...
    def touch_key(self, key_id: str, at: datetime, every_s: float) -> None: ...
    def record(self, actor: str, action: str, target: str, detail: dict[str, Any]) -> None: ...
    def record_events(
        self, actor: str, actor_name: str, workspace: str, events: list[tuple[str, str, dict[str, Any]]]
    ) -> None: ...
    def audit(
        self, actor: str | None = None, action: str | None = None, since: datetime | None = None,
        limit: int = 100, offset: int = 0, target: str | None = None,
    ) -> list[AuditEvent]: ...  # fmt: skip
    def has_server_admin(self) -> bool: ...


class SqlitePrincipalStore:
    """`PrincipalStore` in one SQLite file, created (with its folder) on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._ready = False

    @contextmanager
    def _connect(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if not self._ready or not self.path.exists():
                self._create()
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            try:
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            finally:
                db.close()

    def _create(self) -> None:
        create_store_file(self.path)
        self._ready = True

    # principals

    def add_principal(
        self, actor: str, name: str, kind: PrincipalKind, server_admin: bool = False, subject: str | None = None
    ) -> PrincipalRecord:
        with self._connect(write=True) as db:
            return self._insert_principal(db, actor, name, kind, server_admin, subject)

    def add_first_admin(self, actor: str, name: str, kind: PrincipalKind) -> PrincipalRecord:
        with self._connect(write=True) as db:
            if db.execute("SELECT 1 FROM principals WHERE server_admin = 1 LIMIT 1").fetchone():
                raise PrincipalConflict("a server admin exists already; `graphwire auth bootstrap` runs only once")
            return self._insert_principal(db, actor, name, kind, True, None)

    def _insert_principal(
        self, db: sqlite3.Connection, actor: str, name: str, kind: PrincipalKind, admin: bool, subject: str | None
    ) -> PrincipalRecord:
        principal_id = f"p_{uuid.uuid4().hex[:16]}"
        try:
            db.execute(
                f"INSERT INTO principals ({_PRINCIPAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, 0, ?)",  # noqa: S608
                (principal_id, name, kind.value, int(admin), stamp(now()), subject),
            )
        except sqlite3.IntegrityError as exc:
            raise PrincipalConflict(f"a principal named {name!r} (or with subject {subject!r}) exists") from exc
        detail = {"name": name, "kind": kind.value, "server_admin": admin, "subject": subject}
        _audit(db, actor, "principal.create", principal_id, detail)
        return self._principal_row(db, "id", principal_id)  # type: ignore[return-value]

    def principal(self, ref: str) -> PrincipalRecord | None:
        """By id, else by name."""
        with self._connect() as db:
            return self._principal_row(db, "id", ref) or self._principal_row(db, "name", ref)

    def principal_by_subject(self, subject: str) -> PrincipalRecord | None:
        with self._connect() as db:
            return self._principal_row(db, "subject", subject)

    def principals(self) -> list[PrincipalRecord]:
        with self._connect() as db:
            ids = [row[0] for row in db.execute("SELECT id FROM principals ORDER BY created_at, name")]
            return [p for i in ids if (p := self._principal_row(db, "id", i)) is not None]

    def _principal_row(self, db: sqlite3.Connection, column: str, value: str) -> PrincipalRecord | None:
        row = db.execute(f"SELECT {_PRINCIPAL_COLUMNS} FROM principals WHERE {column} = ?", (value,)).fetchone()  # noqa: S608
        if row is None:
            return None
        groups = [g for (g,) in db.execute("SELECT group_name FROM memberships WHERE principal_id = ? ORDER BY 1",
                                           (row[0],))]  # fmt: skip
        return PrincipalRecord(
            id=row[0], name=row[1], kind=PrincipalKind(row[2]), server_admin=bool(row[3]),
            created_at=datetime.fromisoformat(row[4]), disabled=bool(row[5]), subject=row[6], groups=groups,
        )  # fmt: skip

    def _existing(self, db: sqlite3.Connection, principal_id: str) -> PrincipalRecord:
        found = self._principal_row(db, "id", principal_id)
        if found is None:
            raise PrincipalNotFound(f"no principal {principal_id!r}")
        return found

    def set_disabled(self, actor: str, principal_id: str, disabled: bool) -> PrincipalRecord:
        with self._connect(write=True) as db:
            self._existing(db, principal_id)
            db.execute("UPDATE principals SET disabled = ? WHERE id = ?", (int(disabled), principal_id))
            _audit(db, actor, "principal.disable" if disabled else "principal.enable", principal_id, {})
            return self._existing(db, principal_id)

    def has_server_admin(self) -> bool:
        with self._connect() as db:
            return db.execute("SELECT 1 FROM principals WHERE server_admin = 1 LIMIT 1").fetchone() is not None

    # groups and grants

    def add_member(self, actor: str, principal_id: str, group: str) -> None:
        with self._connect(write=True) as db:
            self._existing(db, principal_id)
            db.execute("INSERT OR IGNORE INTO memberships VALUES (?, ?)", (principal_id, group))
            _audit(db, actor, "group.add_member", principal_id, {"group": group})

    def remove_member(self, actor: str, principal_id: str, group: str) -> bool:
        with self._connect(write=True) as db:
            cursor = db.execute(
                "DELETE FROM memberships WHERE principal_id = ? AND group_name = ?", (principal_id, group)
            )
            if cursor.rowcount:
                _audit(db, actor, "group.remove_member", principal_id, {"group": group})
            return cursor.rowcount == 1

    def grant(self, actor: str, grant: Grant) -> None:
        """Give the subject this role in the workspace, replacing the role it had there."""
        with self._connect(write=True) as db:
            if grant.subject_kind is SubjectKind.PRINCIPAL:
                self._existing(db, grant.subject)
            db.execute(
                "INSERT OR REPLACE INTO grants VALUES (?, ?, ?, ?)",
                (grant.subject_kind.value, grant.subject, grant.workspace, grant.role.value),
            )
            _audit(db, actor, "role.grant", f"{grant.subject_kind.value}:{grant.subject}",
                   {"workspace": grant.workspace, "role": grant.role.value})  # fmt: skip

    def revoke_grant(self, actor: str, subject_kind: SubjectKind, subject: str, workspace: str) -> bool:
        with self._connect(write=True) as db:
            cursor = db.execute(
                "DELETE FROM grants WHERE subject_kind = ? AND subject = ? AND workspace = ?",
                (subject_kind.value, subject, workspace),
            )
            if cursor.rowcount:
                _audit(db, actor, "role.revoke", f"{subject_kind.value}:{subject}", {"workspace": workspace})
            return cursor.rowcount == 1

    def grants(self) -> list[Grant]:
        with self._connect() as db:
            rows = db.execute("SELECT * FROM grants ORDER BY workspace, subject_kind, subject").fetchall()
        return [Grant(subject_kind=SubjectKind(k), subject=s, workspace=w, role=Role(r)) for k, s, w, r in rows]

    def roles_for(self, principal_id: str | None, groups: tuple[str, ...]) -> dict[str, Role]:
        """The highest role per workspace, from the principal's own grants and its groups'."""
        subjects = [(SubjectKind.GROUP.value, g) for g in groups]
        if principal_id is not None:
            subjects.append((SubjectKind.PRINCIPAL.value, principal_id))
        roles: dict[str, Role] = {}
        with self._connect() as db:
            for kind, subject in subjects:
                query = "SELECT workspace, role FROM grants WHERE subject_kind = ? AND subject = ?"
                for workspace, role in db.execute(query, (kind, subject)):
                    if workspace not in roles or Role(role).rank > roles[workspace].rank:
                        roles[workspace] = Role(role)
        return roles

    # keys

    def add_key(self, actor: str, principal_id: str, key: PlainKey, expires_at: datetime | None) -> ApiKeyRecord:
        with self._connect(write=True) as db:
            self._existing(db, principal_id)
            expiry = stamp(expires_at) if expires_at is not None else None
            db.execute(
                "INSERT INTO api_keys (id, principal_id, hash, prefix, created_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key.key_id, principal_id, hash_secret(key.secret), key.prefix, stamp(now()), expiry),
            )
            _audit(db, actor, "key.create", key.key_id, {"principal_id": principal_id, "expires_at": expiry})
            return self._key_row(db, key.key_id)[0]  # type: ignore[index]

    def key_for_check(self, key_id: str) -> tuple[ApiKeyRecord, str] | None:
        """The key and its stored hash (for the authentication check alone)."""
        with self._connect() as db:
            return self._key_row(db, key_id)

    def _key_row(self, db: sqlite3.Connection, key_id: str) -> tuple[ApiKeyRecord, str] | None:
        row = db.execute(f"SELECT {_KEY_COLUMNS}, hash FROM api_keys WHERE id = ?", (key_id,)).fetchone()  # noqa: S608
        return (_key(row[:-1]), row[-1]) if row else None

    def keys(self, principal_id: str | None = None) -> list[ApiKeyRecord]:
        where, args = (" WHERE principal_id = ?", (principal_id,)) if principal_id else ("", ())
        with self._connect() as db:
            rows = db.execute(f"SELECT {_KEY_COLUMNS} FROM api_keys{where} ORDER BY created_at", args).fetchall()  # noqa: S608
        return [_key(row) for row in rows]

    def revoke_key(self, actor: str, key_id: str) -> ApiKeyRecord:
        with self._connect(write=True) as db:
            if self._key_row(db, key_id) is None:
                raise PrincipalNotFound(f"no key {key_id!r}")
            db.execute("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", (stamp(now()), key_id))
            _audit(db, actor, "key.revoke", key_id, {})
            return self._key_row(db, key_id)[0]  # type: ignore[index]

    def touch_key(self, key_id: str, at: datetime, every_s: float) -> None:
        """Record a use, unless one was recorded less than `every_s` ago (by any worker)."""
        before = stamp(at - timedelta(seconds=every_s))
        with self._connect(write=True) as db:
            db.execute(
                "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)",
                (stamp(at), key_id, before),
            )

    # audit

    def record(self, actor: str, action: str, target: str, detail: dict[str, Any]) -> None:
        with self._connect(write=True) as db:
            _audit(db, actor, action, target, detail)

    def record_events(
        self, actor: str, actor_name: str, workspace: str, events: list[tuple[str, str, dict[str, Any]]]
    ) -> None:
        """Document and graph writes: (action, target, detail) each, by one actor in one workspace, one transaction."""
        with self._connect(write=True) as db:
            for action, target, detail in events:
                _audit(db, actor, action, target, detail, actor_name, workspace)

    def audit(
        self, actor: str | None = None, action: str | None = None, since: datetime | None = None,
        limit: int = 100, offset: int = 0, target: str | None = None,
    ) -> list[AuditEvent]:  # fmt: skip
        """Newest first; `action` matches exactly or as a prefix ending in a dot (`key.`)."""
        clauses, args = ["1 = 1"], []
        if actor is not None:
            clauses.append("actor = ?")
            args.append(actor)
        if target is not None:
            clauses.append("target = ?")
            args.append(target)
        if action is not None:
            clauses.append("(action = ? OR (substr(?, -1) = '.' AND action LIKE ? || '%'))")
            args += [action, action, action]
        if since is not None:
            clauses.append("at >= ?")
            args.append(stamp(since))
        query = f"SELECT {_AUDIT_SELECT} FROM audit WHERE {' AND '.join(clauses)} ORDER BY id DESC LIMIT ? OFFSET ?"  # noqa: S608
        with self._connect() as db:
            rows = db.execute(query, (*args, limit, offset)).fetchall()
        return [
            AuditEvent(id=i, at=datetime.fromisoformat(at), actor=who, actor_name=name, workspace=workspace,
                       action=what, target=target, detail=json.loads(detail))
            for i, at, who, name, workspace, what, target, detail in rows
        ]  # fmt: skip


def _audit(
    db: sqlite3.Connection, actor: str, action: str, target: str, detail: dict[str, Any],
    actor_name: str | None = None, workspace: str | None = None,
) -> None:  # fmt: skip
    db.execute(
        "INSERT INTO audit (at, actor, actor_name, workspace, action, target, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (stamp(now()), actor, actor_name, workspace, action, target, json.dumps(detail, sort_keys=True)),
    )


def _key(row: tuple[Any, ...]) -> ApiKeyRecord:
    key_id, principal_id, prefix, created, expires, used, revoked = row
    return ApiKeyRecord(
        id=key_id, principal_id=principal_id, prefix=prefix, created_at=datetime.fromisoformat(created),
        expires_at=_time(expires), last_used_at=_time(used), revoked_at=_time(revoked),
    )  # fmt: skip


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None
