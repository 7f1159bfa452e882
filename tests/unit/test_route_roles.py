"""Every /v1 route declares the role it needs (`RoleCheck`, app/deps.py): a GET needs reader, any other method writer,
except the POSTs that only read (questions), /v1/auth and the admin routes, listed here one by one. A new route that
writes cannot forget its role: this test fails until it has `dependencies=[WRITER]` or is listed."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import RouteContext, iter_route_contexts

from graphwire.app.deps import RoleCheck
from graphwire.app.main import create_app
from graphwire.core.auth.models import Role
from graphwire.core.settings import Settings

READ_POSTS = {"/v1/query", "/v1/retrieve", "/v1/chat/completions"}  # questions: they write nothing
SERVER_ADMIN = "server admin"
AUTH_ROUTES = {
    ("GET", "/v1/auth/whoami"): None,  # whoever is authenticated
    ("GET", "/v1/auth/principals"): SERVER_ADMIN,
    ("POST", "/v1/auth/principals"): SERVER_ADMIN,
    ("POST", "/v1/auth/principals/{ref}/disable"): SERVER_ADMIN,
    ("POST", "/v1/auth/principals/{ref}/enable"): SERVER_ADMIN,
    ("PUT", "/v1/auth/principals/{ref}/groups/{group}"): SERVER_ADMIN,
    ("DELETE", "/v1/auth/principals/{ref}/groups/{group}"): SERVER_ADMIN,
    ("GET", "/v1/auth/grants"): Role.ADMIN.value,
    ("POST", "/v1/auth/grants"): Role.ADMIN.value,
    ("POST", "/v1/auth/grants/revoke"): Role.ADMIN.value,
    ("POST", "/v1/auth/principals/{ref}/keys"): SERVER_ADMIN,
    ("GET", "/v1/auth/keys"): SERVER_ADMIN,
    ("POST", "/v1/auth/keys/{key_id}/revoke"): SERVER_ADMIN,
    ("GET", "/v1/auth/audit"): SERVER_ADMIN,
}
WORKSPACE_ROUTES = {
    ("GET", "/v1/workspaces"): None,  # whoever is authenticated: the workspaces they hold a role in
    ("POST", "/v1/workspaces"): SERVER_ADMIN,
    ("GET", "/v1/workspaces/{name}"): Role.READER.value,  # in the workspace the path names
    ("DELETE", "/v1/workspaces/{name}"): SERVER_ADMIN,
}
ADMIN_ROUTES = {("PUT", "/v1/documents/{document_id:path}/access"): Role.ADMIN.value}  # who may read a document


def _checks(dependant: Dependant) -> list[RoleCheck]:
    found = [dependant.call] if isinstance(dependant.call, RoleCheck) else []
    for sub in dependant.dependencies:
        found += _checks(sub)
    return found


def v1_routes(app: FastAPI) -> list[RouteContext]:
    """Every route under /v1, as served: with the dependencies of the routers that include it."""
    return [r for r in iter_route_contexts(app.routes) if (r.path or "").startswith("/v1/") and r.methods]


def needed(route: RouteContext) -> str | None:
    """The strongest role the route's dependencies check: a role's name, "server admin", or None."""
    checks = _checks(route.dependant)
    if any(check.role is None for check in checks):
        return SERVER_ADMIN
    roles = [check.role for check in checks if check.role is not None]
    return max(roles, key=lambda role: role.rank).value if roles else None


def expected(method: str, path: str) -> str | None:
    if path.startswith("/v1/auth/"):
        return AUTH_ROUTES.get((method, path), "unlisted /v1/auth route")
    if path == "/v1/workspaces" or path.startswith("/v1/workspaces/"):
        return WORKSPACE_ROUTES.get((method, path), "unlisted /v1/workspaces route")
    if (method, path) in ADMIN_ROUTES:
        return ADMIN_ROUTES[(method, path)]
    return Role.READER.value if method in ("GET", "HEAD") or path in READ_POSTS else Role.WRITER.value


def wrong_routes(app: FastAPI) -> list[str]:
    wrong = []
    for route in v1_routes(app):
        for method in sorted(route.methods or ()):
            path = route.path or ""
            if needed(route) != expected(method, path):
                wrong.append(f"{method} {path}: needs {needed(route)}, should {expected(method, path)}")
    return wrong


def _app(tmp_path: Path, *routers: APIRouter) -> FastAPI:
    settings = Settings(_env_file=None, chroma_path=tmp_path / "chroma")  # type: ignore[call-arg]
    return create_app(settings, extra_v1_routers=routers)


def test_every_v1_route_needs_its_role(tmp_path: Path) -> None:
    app = _app(tmp_path)
    assert wrong_routes(app) == []
    paths = {(m, r.path or "") for r in v1_routes(app) for m in r.methods or ()}
    assert set(AUTH_ROUTES) <= paths and set(WORKSPACE_ROUTES) <= paths  # every listed route exists
    writes = {p for m, p in paths if m not in ("GET", "HEAD") and p.startswith("/v1/") and p not in READ_POSTS}
    assert {"/v1/documents", "/v1/documents/{document_id:path}", "/v1/graph/import", "/v1/graph/edits"} <= writes


def test_a_new_route_that_writes_without_the_writer_role_fails_the_check(tmp_path: Path) -> None:
    router = APIRouter()

    @router.post("/frobnicate")
    def frobnicate() -> None: ...

    @router.get("/frobnications")
    def frobnications() -> None: ...

    assert wrong_routes(_app(tmp_path, router)) == ["POST /v1/frobnicate: needs reader, should writer"]
