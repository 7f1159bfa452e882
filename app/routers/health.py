"""GET /health (is Neo4j reachable, is Chroma reachable), the platform probes GET /health/live (the process answers)
and GET /health/ready (it can serve: the startup warm-up finished, Neo4j and Chroma reachable, schema applied,
name index built), and GET /version.
None needs an API key; with API_KEY set, a caller without it sees only the status (no versions, paths or addresses)."""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal

import neo4j
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from graphwire.app.deps import ChromaProviderDep, GraphProviderDep, RetrievalDep, SettingsDep, caller_has_key
from graphwire.app.resources import ChromaProvider, GraphProvider
from graphwire.core.settings import StartupWarmup
from graphwire.retrieval.registry import RetrievalContext
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


class LiveResponse(BaseModel):
    status: Literal["ok"] = Field(description="Always ok: the process answers.")


class ReadyResponse(BaseModel):
    status: Literal["ready", "unready"] = Field(description="ready when every check is ok.")
    checks: dict[str, ComponentHealth] | None = Field(
        default=None,
        description="warming (only while the startup warm-up runs), neo4j (with the circuit breaker's state), "
        "chroma, schema, caches; left out for callers without the key when API_KEY is set.",
    )


@router.get("/health/live", response_model=LiveResponse)
def live() -> LiveResponse:
    """Liveness: the process answers (no backing service is asked). Restart the process when this fails."""
    return LiveResponse(status="ok")


# Probes run here, each waited for at most HEALTH_PROBE_TIMEOUT_S: a hung connection makes the check fail in time
# rather than the probe hang (its thread finishes on its own; four of them at most, later probes queue and time out).
_probes = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphwire-probe")


def _bounded(probe: Callable[[], dict[str, Any]], timeout_s: float) -> ComponentHealth:
    started = time.perf_counter()
    future: Future[ComponentHealth] = _probes.submit(_check, probe)
    try:
        return future.result(timeout=timeout_s)
    except FutureTimeout:
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return ComponentHealth(status="error", latency_ms=elapsed, reason=f"no answer within {timeout_s:g} s")


def _neo4j(graph: GraphProvider) -> Callable[[], dict[str, Any]]:
    def probe() -> dict[str, Any]:
        try:
            return {**graph.ping(), "breaker": graph.breaker_state()}
        except Exception as exc:
            raise RuntimeError(f"{type(exc).__name__}: {exc} (breaker {graph.breaker_state()})") from exc

    return probe


def _schema(graph: GraphProvider) -> dict[str, Any]:
    if not graph.schema_applied:
        raise RuntimeError("the schema (cypher/schema/) is not applied yet")
    return {}


def _caches(retrieval: RetrievalContext) -> dict[str, Any]:
    """Build (first probe) or check the name index every graph mode's first stage reads; its size, and the startup
    warm-up's step timings and failed steps when it ran."""
    details: dict[str, Any] = {"name_index_entries": len(retrieval.services().names.get())}
    if retrieval.warmup.finished:
        details["warmup"] = retrieval.warmup.summary()
    return details


def _warming(retrieval: RetrievalContext) -> ComponentHealth:
    warmup = retrieval.warmup
    done = ", ".join(warmup.summary()["steps_ms"]) or "none yet"
    reason = f"warming up: building {warmup.current or 'the next step'} (done: {done})"
    return ComponentHealth(status="error", latency_ms=0.0, reason=reason, details=warmup.summary())


def readiness(
    graph: GraphProvider,
    chroma: ChromaProvider,
    retrieval: RetrievalContext,
    timeout_s: float,
    wait_warmup: bool = True,
) -> dict[str, ComponentHealth]:
    """Each check; `warming` (failed) first while the startup warm-up runs and `wait_warmup` (STARTUP_WARMUP=wait)
    is on, then the checks of the stores and caches."""
    warming = wait_warmup and retrieval.warmup.running
    checks = {"warming": _warming(retrieval)} if warming else {}
    checks |= {"neo4j": _bounded(_neo4j(graph), timeout_s), "chroma": _bounded(chroma.ping, timeout_s)}
    if checks["neo4j"].status == "ok":
        checks["schema"] = _check(lambda: _schema(graph))
        if warming:  # the warm-up is building the name index: not asked twice
            checks["caches"] = ComponentHealth(status="error", latency_ms=0.0, reason="not checked: warming up")
        else:
            checks["caches"] = _bounded(lambda: _caches(retrieval), timeout_s)
    else:
        skipped = ComponentHealth(status="error", latency_ms=0.0, reason="not checked: Neo4j is unreachable")
        checks["schema"] = checks["caches"] = skipped
    return checks


@router.get(
    "/health/ready",
    response_model=ReadyResponse,
    responses={503: {"model": ReadyResponse, "description": "A check failed; `reason` says why."}},
)
def ready(
    request: Request, graph: GraphProviderDep, chroma: ChromaProviderDep, retrieval: RetrievalDep, settings: SettingsDep
) -> JSONResponse:
    """Readiness: 200 when the startup warm-up has finished (STARTUP_WARMUP=wait; check `warming` until then),
    Neo4j and Chroma answer, the schema is applied and the name index is built, else 503 within about
    HEALTH_PROBE_TIMEOUT_S. Take the instance out of rotation on 503."""
    wait_warmup = settings.startup_warmup is StartupWarmup.WAIT
    checks = readiness(graph, chroma, retrieval, settings.health_probe_timeout_s, wait_warmup)
    is_ready = all(c.status == "ok" for c in checks.values())
    body = ReadyResponse(
        status="ready" if is_ready else "unready", checks=checks if caller_has_key(request, settings) else None
    )
    headers = {} if is_ready else {"Retry-After": str(HEALTH_RETRY_AFTER_S)}
    return JSONResponse(
        body.model_dump(mode="json", exclude_none=True), status_code=200 if is_ready else 503, headers=headers
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
