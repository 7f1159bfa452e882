"""The HTTP routers. Feature routers live under /v1, behind the API key; /health and /version sit at the root.

To add a feature router: create `app/routers/<name>.py` with `router = APIRouter(tags=[...])` (no prefix; paths
are relative to /v1), then add ONE line to `V1_ROUTERS` below: "graphwire.app.routers.<name>". Nothing else to touch.
Each of its routes needs the reader role; a route that writes adds `dependencies=[WRITER]` (app/deps.py), which
tests/unit/test_route_roles.py checks for every route that is not a GET. /v1/auth (`AUTH_ROUTER`) and
/v1/workspaces (`WORKSPACES_ROUTER`) check roles per route: whoever is authenticated may ask who they are and which
workspaces they hold a role in.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module

from fastapi import APIRouter, Depends

from graphwire.app.deps import READER, require_api_key

V1_PREFIX = "/v1"

# One module path per line; each module exposes `router: APIRouter`.
V1_ROUTERS: list[str] = [
    "graphwire.app.routers.query",
    "graphwire.app.routers.entities",
    "graphwire.app.routers.graph",
    "graphwire.app.routers.documents",
    "graphwire.app.routers.jobs",
    "graphwire.app.routers.feeds",
    "graphwire.app.routers.chat",
    "graphwire.app.routers.curation",
    "graphwire.app.routers.exchange",
]
# routers whose routes check roles one by one (in the workspace a path names, or the server admin's)
AUTH_ROUTER = "graphwire.app.routers.auth"
WORKSPACES_ROUTER = "graphwire.app.routers.workspaces"


def build_v1_router(extra: Sequence[APIRouter] = (), secured: bool = True) -> APIRouter:
    """A fresh /v1 router holding every feature router (and `extra`, used by tests). Credentials are checked for
    every /v1 path by `ApiKeyMiddleware` before a body is read; `secured` (AUTH_MODE is not none) adds the dependency
    that declares them in the OpenAPI schema, so an open server does not advertise a key."""
    v1 = APIRouter(prefix=V1_PREFIX, dependencies=[Depends(require_api_key)] if secured else [])
    for module_path in V1_ROUTERS:
        v1.include_router(import_module(module_path).router, dependencies=[READER])
    for router in extra:
        v1.include_router(router, dependencies=[READER])
    v1.include_router(import_module(AUTH_ROUTER).router)
    v1.include_router(import_module(WORKSPACES_ROUTER).router)
    return v1
