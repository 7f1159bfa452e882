"""The HTTP routers. Feature routers live under /v1, behind the API key; /health and /version sit at the root.

To add a feature router: create `app/routers/<name>.py` with `router = APIRouter(tags=[...])` (no prefix; paths
are relative to /v1), then add ONE line to `V1_ROUTERS` below: "graphwire.app.routers.<name>". Nothing else to touch.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module

from fastapi import APIRouter, Depends

from graphwire.app.deps import require_api_key

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


def build_v1_router(extra: Sequence[APIRouter] = (), secured: bool = True) -> APIRouter:
    """A fresh /v1 router holding every feature router (and `extra`, used by tests). The key itself is checked for
    every /v1 path by `ApiKeyMiddleware` before a body is read; `secured` (API_KEY is set) adds the dependency that
    declares the key in the OpenAPI schema, so a server without a key does not advertise one."""
    v1 = APIRouter(prefix=V1_PREFIX, dependencies=[Depends(require_api_key)] if secured else [])
    for module_path in V1_ROUTERS:
        v1.include_router(import_module(module_path).router)
    for router in extra:
        v1.include_router(router)
    return v1
