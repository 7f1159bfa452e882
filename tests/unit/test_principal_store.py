"""The SQLite principal store and the key check: only hashes stored, keys expire and are revoked, last use written
at most once a minute, roles through groups, every change audited without a secret, one bootstrap."""

from __future__ import annotations

import hashlib
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr
from support.auth import make_team

from graphwire.app.auth import operations as ops
from graphwire.app.auth.authenticate import Authenticator, AuthFailure
from graphwire.app.errors import ApiError
from graphwire.core.auth.keys import new_key, parse_key
from graphwire.core.auth.models import LOCAL, Grant, PrincipalKind, Role, SubjectKind
from graphwire.core.auth.store import PrincipalConflict, SqlitePrincipalStore, now
from graphwire.core.settings import AuthMode, Settings


def authenticator(path: Path) -> Authenticator:
    settings = Settings(_env_file=None, auth_mode=AuthMode.PRINCIPALS, auth_store_path=path)  # type: ignore[call-arg]
    return Authenticator.build(settings)


def test_a_key_is_stored_as_its_hash_and_shown_once(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite"
    team = make_team(path)
    key = parse_key(team.reader_key)
    assert key is not None
    stored = path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("p.sqlite-*"))
    assert key.secret.encode() not in stored and team.reader_key.encode() not in stored
    assert hashlib.sha256(key.secret.encode()).hexdigest().encode() in stored
    listed = [k.model_dump_json() for k in ops.list_keys(team.store)]
    assert len(listed) == 3 and all(key.secret not in row and "hash" not in row for row in listed)
    assert any(f'"prefix":"gw_{key.key_id}"' in row for row in listed)


def test_keys_authenticate_until_revoked_or_expired(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite"
    team = make_team(path)
    auth = authenticator(path)
    reader = auth.authenticate(team.reader_key, None)
    assert (reader.name, reader.roles, reader.server_admin, reader.via) == (
        "rita",
        {"default": Role.READER},
        False,
        "key",
    )
    assert auth.authenticate(None, team.admin_key).server_admin  # as a bearer token too

    key = parse_key(team.reader_key)
    assert key is not None
    wrong = f"gw_{key.key_id}_{'A' * 43}"
    for given, reason in ((None, "missing"), ("gw_short", "malformed"), ("not-a-key", "malformed"),
                          (f"gw_{'0' * 16}_{'A' * 43}", "unknown_key"), (wrong, "wrong_secret")):  # fmt: skip
        with pytest.raises(AuthFailure) as refused:
            auth.authenticate(given, None)
        assert refused.value.reason == reason

    ops.revoke_key(team.store, LOCAL, key.key_id)
    with pytest.raises(AuthFailure) as revoked:
        auth.authenticate(team.reader_key, None)
    assert revoked.value.reason == "revoked" and revoked.value.key_id == key.key_id

    rita = team.store.principal("rita")
    assert rita is not None
    old = new_key()
    team.store.add_key("test", rita.id, old, expires_at=now() - timedelta(seconds=1))
    with pytest.raises(AuthFailure) as expired:
        auth.authenticate(old.text, None)
    assert expired.value.reason == "expired"

    ops.set_disabled(team.store, LOCAL, "wendy", True)
    with pytest.raises(AuthFailure) as disabled:
        auth.authenticate(team.writer_key, None)
    assert disabled.value.reason == "disabled"


def test_last_use_is_written_at_most_once_a_minute(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite"
    team = make_team(path)
    key = parse_key(team.writer_key)
    assert key is not None

    def last_used() -> object:
        found = team.store.key_for_check(key.key_id)
        assert found is not None
        return found[0].last_used_at

    assert last_used() is None
    auth = authenticator(path)
    auth.authenticate(team.writer_key, None)
    first = last_used()
    assert first is not None
    auth.authenticate(team.writer_key, None)
    assert last_used() == first  # a second request within the minute writes nothing
    moment = now()
    team.store.touch_key(key.key_id, moment, 60.0)  # another worker: not written before a minute has passed
    assert last_used() == first
    team.store.touch_key(key.key_id, moment + timedelta(seconds=61), 60.0)
    assert last_used() == moment + timedelta(seconds=61)


def test_roles_come_from_own_grants_and_groups_the_highest_wins(tmp_path: Path) -> None:
    team = make_team(tmp_path / "p.sqlite")
    store = team.store
    ops.add_member(store, LOCAL, "rita", "editors")
    ops.grant(store, LOCAL, ops.GrantRequest(group="editors", role=Role.WRITER))
    rita = store.principal("rita")
    assert rita is not None and rita.groups == ["editors"]
    assert store.roles_for(rita.id, ("editors",)) == {"default": Role.WRITER}
    assert store.roles_for(None, ("editors",)) == {"default": Role.WRITER}  # a token's groups alone
    assert store.roles_for(None, ("strangers",)) == {}
    assert Grant(subject_kind=SubjectKind.GROUP, subject="editors", workspace="default", role=Role.WRITER) in (
        store.grants()
    )
    ops.remove_member(store, LOCAL, "rita", "editors")
    assert store.roles_for(rita.id, ()) == {"default": Role.READER}
    ops.grant(store, LOCAL, ops.GrantRequest(principal="rita", workspace="elsewhere", role=Role.ADMIN))
    assert store.roles_for(rita.id, ()) == {"default": Role.READER, "elsewhere": Role.ADMIN}  # a role per workspace
    with pytest.raises(ApiError) as invalid:
        ops.grant(store, LOCAL, ops.GrantRequest(principal="rita", workspace="../elsewhere", role=Role.ADMIN))
    assert invalid.value.status == 422


def test_every_change_is_audited_with_its_actor_and_no_secret(tmp_path: Path) -> None:
    team = make_team(tmp_path / "p.sqlite")
    created = ops.create_key(team.store, LOCAL, "rita", ops.NewKey(expires_in_days=7))
    ops.revoke_key(team.store, LOCAL, created.record.prefix)
    events = ops.audit(team.store, ops.AuditQuery())
    actions = [e.action for e in reversed(events)]
    assert actions == [
        "principal.create", "key.create",  # bootstrap
        "principal.create", "role.grant", "key.create", "principal.create", "role.grant", "key.create",
        "key.create", "key.revoke",
    ]  # fmt: skip
    assert {e.actor for e in events} == {LOCAL.id}
    text = " ".join(e.model_dump_json() for e in events)
    for key in (team.admin_key, team.writer_key, team.reader_key, created.key):
        parsed = parse_key(key)
        assert parsed is not None and parsed.secret not in text
        assert hashlib.sha256(parsed.secret.encode()).hexdigest() not in text
    assert [e.action for e in ops.audit(team.store, ops.AuditQuery(action="key."))][:2] == ["key.revoke", "key.create"]
    assert len(ops.audit(team.store, ops.AuditQuery(limit=3, offset=8))) == 2
    assert len(ops.audit(team.store, ops.AuditQuery(since=events[-1].at))) == len(events)
    assert ops.audit(team.store, ops.AuditQuery(since=events[0].at + timedelta(seconds=1))) == []
    assert ops.audit(team.store, ops.AuditQuery(actor="someone else")) == []


def test_bootstrap_once_even_when_two_processes_race(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite"
    results: list[str] = []

    def attempt(name: str) -> None:
        try:
            SqlitePrincipalStore(path).add_first_admin("test", name, PrincipalKind.USER)
            results.append("created")
        except PrincipalConflict:
            results.append("refused")

    threads = [threading.Thread(target=attempt, args=(f"admin{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["created", "refused", "refused", "refused"]
    assert [p.server_admin for p in SqlitePrincipalStore(path).principals()] == [True]


def test_auth_mode_defaults_to_what_api_key_meant_and_key_mode_needs_the_key() -> None:
    assert Settings(_env_file=None).effective_auth_mode is AuthMode.NONE  # type: ignore[call-arg]
    with_key = Settings(_env_file=None, api_key=SecretStr("k"))  # type: ignore[call-arg]
    assert with_key.effective_auth_mode is AuthMode.KEY
    with pytest.raises(ValueError, match="AUTH_MODE=key needs API_KEY"):
        Settings(_env_file=None, auth_mode=AuthMode.KEY)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="OIDC_JWKS_URL"):
        Settings(_env_file=None, oidc_issuer="https://issuer.test", oidc_audience="x")  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        Settings(_env_file=None, auth_mode="everyone")  # type: ignore[call-arg]
