"""GET /v1/graph/neighborhood (facts within k hops, per-hop budget) and GET /v1/graph/path (shortest path with
provenance). Entity names go through the fuzzy lookup of GET /v1/entities; an entity key is accepted as well.

Errors (standard error body, app/graph_access.py): 404 `entity_not_found`; 409 `ambiguous_entity` with
`details.candidates` (key, name, label, tier, score), retry with a candidate's key; 404 `no_path` when no path exists
within `max_hops`; 422 for `hops`/`max_hops` out of range or the same entity at both ends.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import GraphDep, PrincipalDep, RetrievalDep, SettingsDep
from graphwire.app.graph_access import entity_neighborhood, entity_path, reader_scope
from graphwire.retrieval.paths import MAX_HOPS_NEIGHBORHOOD, MAX_HOPS_PATH, EntityPath, Neighborhood

router = APIRouter(tags=["graph"])

EntityName = Annotated[str, Query(min_length=1, max_length=200, description="An entity name, alias or key.")]


@router.get("/graph/neighborhood", response_model=Neighborhood)
async def graph_neighborhood(
    graph: GraphDep,
    settings: SettingsDep,
    caller: PrincipalDep,
    retrieval: RetrievalDep,
    entity: EntityName,
    hops: Annotated[int, Query(ge=1, le=MAX_HOPS_NEIGHBORHOOD, description="Hops from the entity (1-3).")] = 1,
    limit: Annotated[int, Query(ge=1, le=500, description="At most this many facts per hop.")] = 50,
) -> Neighborhood:
    """The facts within `hops` hops of an entity, hop by hop, with how many facts and tokens each hop adds."""
    scope = await run_in_threadpool(reader_scope, retrieval, caller.reader())
    return await run_in_threadpool(entity_neighborhood, graph, settings, entity, hops, limit, scope)


@router.get("/graph/path", response_model=EntityPath)
async def graph_path(
    graph: GraphDep,
    settings: SettingsDep,
    caller: PrincipalDep,
    retrieval: RetrievalDep,
    source: EntityName,
    target: EntityName,
    max_hops: Annotated[int, Query(ge=1, le=MAX_HOPS_PATH, description="Longest path searched (1-6).")] = MAX_HOPS_PATH,
) -> EntityPath:
    """A shortest path between two entities over extracted facts, each hop with its supporting chunks."""
    scope = await run_in_threadpool(reader_scope, retrieval, caller.reader())
    return await run_in_threadpool(entity_path, graph, settings, source, target, max_hops, scope)
