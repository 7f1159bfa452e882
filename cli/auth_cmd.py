"""`graphwire auth`: principals, roles, API keys and the audit log of the principal store (AUTH_STORE_PATH), for
AUTH_MODE=principals (docs/security.md). `bootstrap` makes the first server admin and prints its key, once.

The same functions as /v1/auth (app/auth/operations.py); the actor in the audit log is `local:<login name>`: whoever
can run this command on the server's machine can read the store's file anyway.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel, ValidationError

from graphwire.app.audit_events import local_operator
from graphwire.app.auth import operations as ops
from graphwire.app.errors import ApiError
from graphwire.cli.common import fail
from graphwire.core.auth.models import Principal, PrincipalKind, Role
from graphwire.core.auth.store import SqlitePrincipalStore
from graphwire.core.settings import get_settings

app = typer.Typer(
    help="Principals, roles and API keys (AUTH_MODE=principals): bootstrap, principal, grant, key, audit."
)
principal_app = typer.Typer(help="Users and service accounts.")
key_app = typer.Typer(help="API keys: shown once at creation, stored as hashes.")
app.add_typer(principal_app, name="principal")
app.add_typer(key_app, name="key")
T = TypeVar("T")

Kind = Annotated[PrincipalKind, typer.Option(help="user or service")]
Workspace = Annotated[str, typer.Option(help="the workspace (only `default` exists yet)")]
Group = Annotated[str | None, typer.Option(help="grant to this group instead of a principal")]


def _store() -> SqlitePrincipalStore:
    return SqlitePrincipalStore(get_settings().auth_store_path)


def _actor() -> Principal:
    return local_operator()


def _run(fn: Callable[[], T]) -> T:
    """One line on stderr (exit 1) for a refusal, as the API's 4xx message."""
    try:
        return fn()
    except ApiError as exc:
        raise fail(exc.message) from None
    except ValidationError as exc:
        raise fail("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())) from None


def _print(value: BaseModel | list[Any]) -> None:
    data = [v.model_dump(mode="json") for v in value] if isinstance(value, list) else value.model_dump(mode="json")
    typer.echo(json.dumps(data, indent=2))


def _key_lines(created: Any) -> None:
    typer.echo(created.key)
    typer.echo(f"(key {created.record.prefix}: shown once, only its hash is stored)", err=True)


@app.command()
def bootstrap(
    name: Annotated[str, typer.Argument(help="the first server admin's name")] = "admin",
    kind: Kind = PrincipalKind.USER,
) -> None:
    """Create the first server admin and print its API key once; refused once any server admin exists."""
    _key_lines(_run(lambda: ops.bootstrap(_store(), _actor(), name, kind)))


@principal_app.command("add")
def principal_add(
    name: str,
    kind: Kind = PrincipalKind.USER,
    server_admin: Annotated[bool, typer.Option("--server-admin", help="may do everything")] = False,
    subject: Annotated[str | None, typer.Option(help="the OIDC subject whose tokens are this principal")] = None,
) -> None:
    """Add a user or service account (no role until one is granted)."""
    new = _run(lambda: ops.NewPrincipal(name=name, kind=kind, server_admin=server_admin, subject=subject))
    _print(_run(lambda: ops.add_principal(_store(), _actor(), new)))


@principal_app.command("list")
def principal_list() -> None:
    """Every principal with its groups (JSON)."""
    _print(ops.list_principals(_store()))


@principal_app.command("disable")
def principal_disable(
    ref: Annotated[str, typer.Argument(help="id or name")],
    enable: Annotated[bool, typer.Option("--enable", help="enable it again instead")] = False,
) -> None:
    """Stop every key and token of a principal at once (or `--enable` it again)."""
    _print(_run(lambda: ops.set_disabled(_store(), _actor(), ref, not enable)))


@principal_app.command("group")
def principal_group(
    ref: Annotated[str, typer.Argument(help="id or name")],
    group: str,
    remove: Annotated[bool, typer.Option("--remove", help="take it out of the group instead")] = False,
) -> None:
    """Put a principal in a group (its grants apply to the principal), or `--remove` it."""
    operation = ops.remove_member if remove else ops.add_member
    _print(_run(lambda: operation(_store(), _actor(), ref, group)))


def _grant_request(principal: str | None, group: str | None, workspace: str, role: Role | None) -> ops.GrantRequest:
    return _run(lambda: ops.GrantRequest(principal=principal, group=group, workspace=workspace, role=role))


@app.command()
def grant(
    role: Role,
    principal: Annotated[str | None, typer.Argument(help="id or name (or --group)")] = None,
    group: Group = None,
    workspace: Workspace = "default",
) -> None:
    """Give a principal (or a group) a role in a workspace: reader, writer or admin."""
    request = _grant_request(principal, group, workspace, role)
    _print(_run(lambda: ops.grant(_store(), _actor(), request)))


@app.command("revoke-role")
def revoke_role(
    principal: Annotated[str | None, typer.Argument(help="id or name (or --group)")] = None,
    group: Group = None,
    workspace: Workspace = "default",
) -> None:
    """Take a principal's (or a group's) role in a workspace away."""
    request = _grant_request(principal, group, workspace, None)
    _run(lambda: ops.revoke_role(_store(), _actor(), request))
    typer.echo("revoked")


@key_app.command("create")
def key_create(
    principal: Annotated[str, typer.Argument(help="id or name")],
    expires_in_days: Annotated[int | None, typer.Option(help="days until it stops working (default: never)")] = None,
) -> None:
    """Create an API key for a principal and print it, once."""
    new = _run(lambda: ops.NewKey(expires_in_days=expires_in_days))
    _key_lines(_run(lambda: ops.create_key(_store(), _actor(), principal, new)))


@key_app.command("list")
def key_list(principal: Annotated[str | None, typer.Argument(help="only this principal's")] = None) -> None:
    """Keys: prefix, created, expiry, last use, revocation (JSON; never the key)."""
    _print(_run(lambda: ops.list_keys(_store(), principal)))


@key_app.command("revoke")
def key_revoke(key_id: Annotated[str, typer.Argument(help="the key's id or its gw_ prefix")]) -> None:
    """Revoke a key: it is refused from the next request on."""
    _print(_run(lambda: ops.revoke_key(_store(), _actor(), key_id)))


@app.command()
def audit(
    actor: Annotated[str | None, typer.Option(help="only changes by this principal id")] = None,
    action: Annotated[str | None, typer.Option(help="an action, or a prefix ending in a dot (key.)")] = None,
    since: Annotated[datetime | None, typer.Option(help="only events at or after this time")] = None,
    target: Annotated[
        str | None, typer.Option(help="only events about this document, job, edit or principal id")
    ] = None,
    limit: int = 100,
    offset: int = 0,
) -> None:
    """Principal, group, role and key changes, and document and graph writes, newest first (JSON)."""
    query = _run(
        lambda: ops.AuditQuery(actor=actor, action=action, since=since, target=target, limit=limit, offset=offset)
    )
    _print(ops.audit(_store(), query))
