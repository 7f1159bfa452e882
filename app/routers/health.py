"""GET /health (is Neo4j reachable, is Chroma reachable) and GET /version. Neither needs an API key; with API_KEY set,
a caller without it sees only the status (no versions, paths or addresses)."""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal

import neo4j
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from graphwire.app.deps import ChromaProviderDep, GraphProviderDep, SettingsDep, caller_has_key
from graphwire.schema.model import load_schema

HEALTH_RETRY_AFTER_S = 5

router = APIRouter(tags=["service"])


class ComponentHealth(BaseModel):
    status: Literal["ok", "error"] = Field(description="Whether the component answered.")
    latency_ms: float = Field(description="How long the check took.")
    reason: str | None = Field(default=None, description="Why the check failed, when it did.")
    details: dict[str, Any] = Field(default_factory=dict, description="What the component said about itself.")


class HealthResponse(BaseModel):
    status: Literal["ok", "unavailable"] = Field(description="ok when every component is ok.")
    components: dict[str, ComponentHealth] | None = Field(
        default=None,
        description="One check per backing service (neo4j, chroma); left out for callers without the key when "
        "API_KEY is set.",
    )


_WITH_KEY = " Left out for callers without the key when API_KEY is set."


class VersionResponse(BaseModel):
    name: str = Field(description="Package name.")
    api: str = Field(description="API version prefix.")
    version: str | None = Field(default=None, description="Package version." + _WITH_KEY)
    python: str | None = Field(default=None, description="Python version of the server." + _WITH_KEY)
    neo4j_driver: str | None = Field(default=None, description="Version of the Neo4j Python driver." + _WITH_KEY)
    schema_fingerprint: str | None = Field(
        default=None, description="Fingerprint of the loaded graph schema file." + _WITH_KEY
    )


def _check(probe: Callable[[], dict[str, Any]]) -> ComponentHealth:
    started = time.perf_counter()
    try:
        details = probe()
    except Exception as exc:  # any failure is the answer here, not an error of the endpoint
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return ComponentHealth(status="error", latency_ms=elapsed, reason=f"{type(exc).__name__}: {exc}")
    return ComponentHealth(status="ok", latency_ms=round((time.perf_counter() - started) * 1000, 1), details=details)


@router.get(
    "/health",
    response_model=HealthResponse,
    responses={503: {"model": HealthResponse, "description": "A component is down; `reason` says why."}},
)
def health(request: Request, graph: GraphProviderDep, chroma: ChromaProviderDep, settings: SettingsDep) -> JSONResponse:
    """200 when Neo4j and Chroma both answer, else 503 with the reason per component (for callers with the key)."""
    components = {"neo4j": _check(graph.ping), "chroma": _check(chroma.ping)}
    healthy = all(c.status == "ok" for c in components.values())
    shown = components if caller_has_key(request, settings) else None
    body = HealthResponse(status="ok" if healthy else "unavailable", components=shown)
    headers = {} if healthy else {"Retry-After": str(HEALTH_RETRY_AFTER_S)}  # a probe or balancer knows when to ask
    return JSONResponse(
        body.model_dump(mode="json", exclude_none=True), status_code=200 if healthy else 503, headers=headers
    )


def package_version() -> str:
    try:
        return version("graphwire")
    except PackageNotFoundError:
        return "0+unknown"


@router.get("/version", response_model=VersionResponse, response_model_exclude_none=True)
def get_version(request: Request, settings: SettingsDep) -> VersionResponse:
    if not caller_has_key(request, settings):
        return VersionResponse(name="graphwire", api="v1")
    return VersionResponse(
        name="graphwire",
        version=package_version(),
        api="v1",
        python=platform.python_version(),
        neo4j_driver=neo4j.__version__,
        schema_fingerprint=load_schema(settings.schema_path).fingerprint,
    )
