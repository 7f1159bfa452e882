"""The one door of principal administration: /v1/auth (app/routers/auth.py) and `graphwire auth` (cli/auth_cmd.py)
call these functions, so a change is checked, stored and audited the same way whichever door it came through.

Each change names its `actor` (the caller's principal); the store writes the audit event in the change's transaction.
Refusals are `ApiError`s: 404 for an unknown principal or key, 409 for a name taken, 422 for an invalid workspace name.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated, TypeVar

from pydantic import BaseModel, Field, model_validator

from graphwire.app.errors import ApiError
from graphwire.core import workspaces
from graphwire.core.auth.keys import new_key
from graphwire.core.auth.models import (
    ApiKeyRecord,
    AuditEvent,
    CreatedKey,
    Grant,
    Principal,
    PrincipalKind,
    PrincipalRecord,
    Role,
    SubjectKind,
)
from graphwire.core.auth.store import PrincipalConflict, PrincipalNotFound, PrincipalStore, now
from graphwire.core.workspaces import DEFAULT_WORKSPACE

T = TypeVar("T")
Name = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\s].*$")]
MAX_KEY_DAYS = 3650


class NewPrincipal(BaseModel):
    name: Name
    kind: PrincipalKind = PrincipalKind.USER
    server_admin: bool = False
    subject: Annotated[str | None, Field(min_length=1, max_length=500)] = Field(
        default=None, description="The OIDC subject (OIDC_SUBJECT_CLAIM) whose bearer tokens are this principal."
    )


class GrantRequest(BaseModel):
    """A role for one principal (`principal`: its id or name) or for every member of a group (`group`)."""

    principal: str | None = None
    group: Name | None = None
    workspace: str = DEFAULT_WORKSPACE
    role: Role | None = Field(default=None, description="Required to grant; ignored when revoking.")

    @model_validator(mode="after")
    def _one_subject(self) -> GrantRequest:
        if (self.principal is None) == (self.group is None):
            raise ValueError("name exactly one of principal and group")
        return self


class NewKey(BaseModel):
    expires_in_days: Annotated[int | None, Field(ge=1, le=MAX_KEY_DAYS)] = Field(
        default=None, description="Days until the key stops working; unset = it never expires (revoke it instead)."
    )


class AuditQuery(BaseModel):
    actor: str | None = None
    action: str | None = Field(default=None, description="An action (key.create), or a prefix ending in a dot (key.).")
    since: datetime | None = None
    target: str | None = Field(default=None, description="Only events about this target: a document id, a job id, "
                                                          "an edit id, a principal id.")  # fmt: skip
    limit: Annotated[int, Field(ge=1, le=1000)] = 100
    offset: Annotated[int, Field(ge=0)] = 0


class WhoAmI(BaseModel):
    id: str
    name: str
    via: str
    server_admin: bool
    groups: list[str]
    roles: dict[str, Role]


def _refusals(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except PrincipalNotFound as exc:
        raise ApiError(404, "not_found", str(exc)) from exc
    except PrincipalConflict as exc:
        raise ApiError(409, "conflict", str(exc)) from exc


def whoami(caller: Principal) -> WhoAmI:
    return WhoAmI(id=caller.id, name=caller.name, via=caller.via, server_admin=caller.server_admin,
                  groups=list(caller.groups), roles=caller.roles)  # fmt: skip


def principal(store: PrincipalStore, ref: str) -> PrincipalRecord:
    found = store.principal(ref)
    if found is None:
        raise ApiError(404, "not_found", f"no principal with the id or name {ref!r}")
    return found


def add_principal(store: PrincipalStore, actor: Principal, new: NewPrincipal) -> PrincipalRecord:
    return _refusals(lambda: store.add_principal(actor.id, new.name, new.kind, new.server_admin, new.subject))


def list_principals(store: PrincipalStore) -> list[PrincipalRecord]:
    return store.principals()


def set_disabled(store: PrincipalStore, actor: Principal, ref: str, disabled: bool) -> PrincipalRecord:
    target = principal(store, ref)
    if disabled and target.id == actor.id:
        raise ApiError(409, "conflict", "a server admin cannot disable itself")
    return _refusals(lambda: store.set_disabled(actor.id, target.id, disabled))


def add_member(store: PrincipalStore, actor: Principal, ref: str, group: str) -> PrincipalRecord:
    target = principal(store, ref)
    _refusals(lambda: store.add_member(actor.id, target.id, group))
    return principal(store, target.id)


def remove_member(store: PrincipalStore, actor: Principal, ref: str, group: str) -> PrincipalRecord:
    target = principal(store, ref)
    if not store.remove_member(actor.id, target.id, group):
        raise ApiError(404, "not_found", f"{target.name!r} is not a member of {group!r}")
    return principal(store, target.id)


def _subject(store: PrincipalStore, request: GrantRequest) -> tuple[SubjectKind, str]:
    if not workspaces.NAME.match(request.workspace):
        raise ApiError(422, "invalid_workspace", f"invalid workspace name {request.workspace!r}")
    if request.group is not None:
        return SubjectKind.GROUP, request.group
    return SubjectKind.PRINCIPAL, principal(store, request.principal or "").id


def _may_grant(actor: Principal, workspace: str) -> None:
    if not actor.may(Role.ADMIN, workspace):
        raise ApiError(
            403, "forbidden", f"only an admin of workspace {workspace!r} (or a server admin) manages its roles"
        )


def grant(store: PrincipalStore, actor: Principal, request: GrantRequest) -> Grant:
    _may_grant(actor, request.workspace)
    if request.role is None:
        raise ApiError(422, "invalid_request", "name the role to grant: reader, writer or admin")
    kind, subject = _subject(store, request)
    given = Grant(subject_kind=kind, subject=subject, workspace=request.workspace, role=request.role)
    _refusals(lambda: store.grant(actor.id, given))
    return given


def revoke_role(store: PrincipalStore, actor: Principal, request: GrantRequest) -> None:
    _may_grant(actor, request.workspace)
    kind, subject = _subject(store, request)
    if not store.revoke_grant(actor.id, kind, subject, request.workspace):
        raise ApiError(404, "not_found", f"{kind.value} {subject!r} has no role in workspace {request.workspace!r}")


def list_grants(store: PrincipalStore) -> list[Grant]:
    return store.grants()


def create_key(store: PrincipalStore, actor: Principal, ref: str, new: NewKey) -> CreatedKey:
    """A new key for the principal: the plain key is in the answer, this once; the store keeps its hash."""
    target = principal(store, ref)
    expires = now() + timedelta(days=new.expires_in_days) if new.expires_in_days is not None else None
    key = new_key()
    record = _refusals(lambda: store.add_key(actor.id, target.id, key, expires))
    return CreatedKey(key=key.text, record=record)


def list_keys(store: PrincipalStore, ref: str | None = None) -> list[ApiKeyRecord]:
    return store.keys(principal(store, ref).id if ref is not None else None)


def revoke_key(store: PrincipalStore, actor: Principal, key_id: str) -> ApiKeyRecord:
    return _refusals(lambda: store.revoke_key(actor.id, key_id.removeprefix("gw_")))


def audit(store: PrincipalStore, query: AuditQuery) -> list[AuditEvent]:
    return store.audit(query.actor, query.action, query.since, query.limit, query.offset, query.target)


def bootstrap(store: PrincipalStore, actor: Principal, name: str, kind: PrincipalKind) -> CreatedKey:
    """The first server admin and its key; 409 once any server admin exists."""
    admin = _refusals(lambda: store.add_first_admin(actor.id, name, kind))
    return create_key(store, actor, admin.id, NewKey())
