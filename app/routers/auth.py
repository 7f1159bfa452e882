"""/v1/auth: who the caller is, and (server admins) the principals, their groups, roles and API keys, and the audit
log. A thin surface over app/auth/operations.py, the door `graphwire auth` uses too (docs/security.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from graphwire.app.auth import operations as ops
from graphwire.app.deps import SERVER_ADMIN, AuthenticatorDep, PrincipalDep, RoleCheck, ServerAdminDep
from graphwire.core.auth.models import ApiKeyRecord, AuditEvent, CreatedKey, Grant, Principal, PrincipalRecord, Role

router = APIRouter(prefix="/auth", tags=["auth"])
WORKSPACE_ADMIN = Depends(RoleCheck(Role.ADMIN))  # and the operation checks the workspace the grant names
WorkspaceAdminDep = Annotated[Principal, WORKSPACE_ADMIN]
Ref = Annotated[str, "a principal's id or name"]


@router.get("/whoami", response_model=ops.WhoAmI)
def whoami(caller: PrincipalDep) -> ops.WhoAmI:
    """The caller: its id, name, groups, roles per workspace, and how it authenticated."""
    return ops.whoami(caller)


@router.get("/principals", response_model=list[PrincipalRecord], dependencies=[SERVER_ADMIN])
def list_principals(auth: AuthenticatorDep) -> list[PrincipalRecord]:
    return ops.list_principals(auth.store)


@router.post("/principals", status_code=201, response_model=PrincipalRecord)
def add_principal(body: ops.NewPrincipal, caller: ServerAdminDep, auth: AuthenticatorDep) -> PrincipalRecord:
    """A user or service account, with no role until one is granted (to it or to one of its groups)."""
    return ops.add_principal(auth.store, caller, body)


@router.post("/principals/{ref}/disable", response_model=PrincipalRecord)
def disable(ref: Ref, caller: ServerAdminDep, auth: AuthenticatorDep) -> PrincipalRecord:
    """Its keys and tokens stop working at once (kept, so enabling it again brings them back)."""
    return ops.set_disabled(auth.store, caller, ref, True)


@router.post("/principals/{ref}/enable", response_model=PrincipalRecord)
def enable(ref: Ref, caller: ServerAdminDep, auth: AuthenticatorDep) -> PrincipalRecord:
    return ops.set_disabled(auth.store, caller, ref, False)


@router.put("/principals/{ref}/groups/{group}", response_model=PrincipalRecord)
def add_member(ref: Ref, group: str, caller: ServerAdminDep, auth: AuthenticatorDep) -> PrincipalRecord:
    return ops.add_member(auth.store, caller, ref, group)


@router.delete("/principals/{ref}/groups/{group}", response_model=PrincipalRecord)
def remove_member(ref: Ref, group: str, caller: ServerAdminDep, auth: AuthenticatorDep) -> PrincipalRecord:
    return ops.remove_member(auth.store, caller, ref, group)


@router.get("/grants", response_model=list[Grant], dependencies=[WORKSPACE_ADMIN])
def list_grants(auth: AuthenticatorDep) -> list[Grant]:
    return ops.list_grants(auth.store)


@router.post("/grants", response_model=Grant)
def grant(body: ops.GrantRequest, caller: WorkspaceAdminDep, auth: AuthenticatorDep) -> Grant:
    """Give a principal or a group a role in a workspace (replacing the role it had there)."""
    return ops.grant(auth.store, caller, body)


@router.post("/grants/revoke", status_code=204)
def revoke_role(body: ops.GrantRequest, caller: WorkspaceAdminDep, auth: AuthenticatorDep) -> None:
    ops.revoke_role(auth.store, caller, body)


@router.post("/principals/{ref}/keys", status_code=201, response_model=CreatedKey)
def create_key(ref: Ref, body: ops.NewKey, caller: ServerAdminDep, auth: AuthenticatorDep) -> CreatedKey:
    """A new API key: `key` is shown in this answer only; the server keeps its hash."""
    return ops.create_key(auth.store, caller, ref, body)


@router.get("/keys", response_model=list[ApiKeyRecord], dependencies=[SERVER_ADMIN])
def list_keys(
    auth: AuthenticatorDep, principal: Annotated[str | None, Query(description="Only this principal's keys.")] = None
) -> list[ApiKeyRecord]:
    """Every key's prefix, creation, expiry, last use and revocation; never the key or its hash."""
    return ops.list_keys(auth.store, principal)


@router.post("/keys/{key_id}/revoke", response_model=ApiKeyRecord)
def revoke_key(key_id: str, caller: ServerAdminDep, auth: AuthenticatorDep) -> ApiKeyRecord:
    return ops.revoke_key(auth.store, caller, key_id)


@router.get("/audit", response_model=list[AuditEvent], dependencies=[SERVER_ADMIN])
def audit(
    auth: AuthenticatorDep,
    actor: Annotated[str | None, Query(max_length=200, description="Only changes by this principal id.")] = None,
    action: Annotated[str | None, Query(max_length=100, description="An action, or a prefix ending in a dot.")] = None,
    since: Annotated[datetime | None, Query(description="Only events at or after this time (ISO 8601).")] = None,
    target: Annotated[
        str | None, Query(max_length=2000, description="Only events about this document, job, edit or principal id.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> list[AuditEvent]:
    """Principal, group, role and key changes, and document and graph writes, newest first, a page at a time."""
    query = ops.AuditQuery(actor=actor, action=action, since=since, target=target, limit=limit, offset=offset)
    return ops.audit(auth.store, query)
