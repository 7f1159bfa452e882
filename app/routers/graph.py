"""GET /v1/graph/neighborhood (facts within k hops, per-hop budget) and GET /v1/graph/path (shortest path with
provenance). Entity names go through the fuzzy lookup of GET /v1/entities; an entity key is accepted as well.

Errors (standard error body): 404 `entity_not_found`; 409 `ambiguous_entity` with `details.candidates` (key, name,
label, tier, score), retry with a candidate's key; 404 `no_path` when no path exists within `max_hops`; 422 for
`hops`/`max_hops` out of range or the same entity at both ends.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import GraphDep, SettingsDep
from graphwire.app.errors import ApiError
from graphwire.core.clients.graph import Graph
from graphwire.core.schema import configured_schema
from graphwire.core.settings import Settings
from graphwire.retrieval.paths import (
    MAX_HOPS_NEIGHBORHOOD,
    MAX_HOPS_PATH,
    AmbiguousEntityError,
    EntityNotFoundError,
    EntityPath,
    EntityRef,
    Neighborhood,
    NoPathError,
    hub_types,
    neighborhood,
    resolve_entity,
    shortest_path,
)

router = APIRouter(tags=["graph"])

EntityName = Annotated[str, Query(min_length=1, max_length=200, description="An entity name, alias or key.")]


def _resolve(graph: Graph, name: str, role: str) -> EntityRef:
    if not name.strip():
        raise ApiError(422, "validation_error", f"{role} must not be blank")
    try:
        return resolve_entity(graph, name)
    except EntityNotFoundError as exc:
        raise ApiError(404, "entity_not_found", f"{role}: {exc}", {"role": role, "name": name}) from exc
    except AmbiguousEntityError as exc:
        candidates = [c.model_dump(include={"key", "name", "label", "tier", "score"}) for c in exc.candidates]
        raise ApiError(
            409, "ambiguous_entity", f"{role}: {exc}", {"role": role, "name": name, "candidates": candidates}
        ) from exc


def _neighborhood(graph: Graph, settings: Settings, entity: str, hops: int, limit: int) -> Neighborhood:
    excluded = hub_types(configured_schema(settings))
    return neighborhood(graph, _resolve(graph, entity, "entity"), hops, per_hop_limit=limit, excluded_types=excluded)


def _path(graph: Graph, settings: Settings, source: str, target: str, max_hops: int) -> EntityPath:
    src, dst = _resolve(graph, source, "source"), _resolve(graph, target, "target")
    if src.key == dst.key:
        raise ApiError(422, "validation_error", f"source and target are the same entity ({src.key})")
    try:
        return shortest_path(graph, src, dst, max_hops, excluded_types=hub_types(configured_schema(settings)))
    except NoPathError as exc:
        details = {"source": src.model_dump(), "target": dst.model_dump(), "max_hops": max_hops}
        raise ApiError(404, "no_path", str(exc), details) from exc


@router.get("/graph/neighborhood", response_model=Neighborhood)
async def graph_neighborhood(
    graph: GraphDep,
    settings: SettingsDep,
    entity: EntityName,
    hops: Annotated[int, Query(ge=1, le=MAX_HOPS_NEIGHBORHOOD, description="Hops from the entity (1-3).")] = 1,
    limit: Annotated[int, Query(ge=1, le=500, description="At most this many facts per hop.")] = 50,
) -> Neighborhood:
    """The facts within `hops` hops of an entity, hop by hop, with how many facts and tokens each hop adds."""
    return await run_in_threadpool(_neighborhood, graph, settings, entity, hops, limit)


@router.get("/graph/path", response_model=EntityPath)
async def graph_path(
    graph: GraphDep,
    settings: SettingsDep,
    source: EntityName,
    target: EntityName,
    max_hops: Annotated[int, Query(ge=1, le=MAX_HOPS_PATH, description="Longest path searched (1-6).")] = MAX_HOPS_PATH,
) -> EntityPath:
    """A shortest path between two entities over extracted facts, each hop with its supporting chunks."""
    return await run_in_threadpool(_path, graph, settings, source, target, max_hops)
