"""The vocabulary of authentication: roles, principals, grants, API keys and audit events.

A grant names a workspace (core/workspaces.py); a principal acts in one workspace per request (`acting_in`), and
its roles and the documents it reads are those of that workspace.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from graphwire.core.access import EVERYONE, Reader
from graphwire.core.workspaces import DEFAULT_WORKSPACE


class Role(StrEnum):
    """What a principal may do in a workspace; each role includes the ones before it."""

    READER = "reader"  # every read route: questions, retrieval, graph views, documents, jobs, feeds, export
    WRITER = "writer"  # and the write routes: documents, graph import and edits, job cancels
    ADMIN = "admin"  # and the workspace's grants

    @property
    def rank(self) -> int:
        return list(Role).index(self)

    def covers(self, needed: Role) -> bool:
        return self.rank >= needed.rank


class PrincipalKind(StrEnum):
    USER = "user"
    SERVICE = "service"


class SubjectKind(StrEnum):
    """Who a grant is for: one principal, or every member of a group."""

    PRINCIPAL = "principal"
    GROUP = "group"


class PrincipalRecord(BaseModel):
    """A stored user or service account."""

    id: str
    name: str
    kind: PrincipalKind
    server_admin: bool
    created_at: datetime
    disabled: bool
    subject: str | None = Field(default=None, description="The OIDC subject a bearer token names it by.")
    groups: list[str] = Field(default_factory=list)


class Grant(BaseModel):
    subject_kind: SubjectKind
    subject: str  # a principal id or a group name
    workspace: str
    role: Role


class ApiKeyRecord(BaseModel):
    """An API key as lists show it: never its secret, never its hash."""

    id: str
    principal_id: str
    prefix: str = Field(description="The start of the key (`gw_<id>`), to recognise it; not a secret.")
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None


class CreatedKey(BaseModel):
    """A new key: `key` is the only time the plain key is shown; only its hash is stored."""

    key: str
    record: ApiKeyRecord


class AuditEvent(BaseModel):
    id: int
    at: datetime
    actor: str = Field(description="The acting principal's id (`local:<login>` for `graphwire auth`).")
    actor_name: str | None = Field(default=None, description="Its name when the event was written, if recorded.")
    workspace: str | None = Field(default=None, description="The workspace of a document or graph write.")
    action: str
    target: str
    detail: dict[str, Any]


class Principal(BaseModel):
    """The caller of a request, resolved from a key or a token: what the routes check roles against."""

    id: str
    name: str
    groups: tuple[str, ...] = ()
    roles: dict[str, Role] = Field(default_factory=dict, description="The highest role per workspace.")
    server_admin: bool = False
    via: str = Field(description="How it authenticated: open, shared_key, key, token (or local, the CLI).")
    workspace: str = Field(default=DEFAULT_WORKSPACE, description="The workspace it acts in (its request's).")

    def acting_in(self, workspace: str) -> Principal:
        """This principal acting in `workspace`: the default of every role check below."""
        return self if workspace == self.workspace else self.model_copy(update={"workspace": workspace})

    def role_in(self, workspace: str | None = None) -> Role | None:
        return Role.ADMIN if self.server_admin else self.roles.get(workspace or self.workspace)

    def may(self, needed: Role, workspace: str | None = None) -> bool:
        role = self.role_in(workspace)
        return role is not None and role.covers(needed)

    def reader(self, workspace: str | None = None) -> Reader:
        """The documents it reads: all of them as a server or workspace admin, else those whose `access` names it or
        one of its groups, and those without one (core/access.py)."""
        if self.role_in(workspace) is Role.ADMIN:
            return EVERYONE
        return Reader.of([self.name, *self.groups])

    def refusal(self, needed: Role | None, workspace: str | None = None) -> str | None:
        """Why this principal may not do what needs `needed` (None: a server admin), or None when it may."""
        workspace = workspace or self.workspace
        if needed is None:
            return None if self.server_admin else f"only a server admin may do this; {self.name!r} is not one"
        if self.may(needed, workspace):
            return None
        held = self.role_in(workspace)
        return (f"this needs the {needed.value} role in workspace {workspace!r}; {self.name!r} has "
                f"{f'the {held.value} role' if held else 'no role'} there")  # fmt: skip


# Callers without a principal store: an open server's every caller, and the holder of the one shared API_KEY.
OPEN = Principal(id="anonymous", name="anonymous", server_admin=True, via="open")
SHARED_KEY = Principal(id="shared-key", name="API_KEY holder", server_admin=True, via="shared_key")
LOCAL = Principal(id="local", name="local operator", server_admin=True, via="local")  # the CLI on this machine
# the API's feed watcher (FEED_WATCH): the actor of the document jobs it posts
FEED_WATCHER = Principal(id="feed-watcher", name="feed watcher", server_admin=True, via="feed")
