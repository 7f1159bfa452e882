"""GET /v1/entities?q= (fuzzy entity lookup with labels and aliases) and GET /v1/graph/stats (counts)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import GraphDep, PrincipalDep, RetrievalDep, SettingsDep
from graphwire.app.graph_access import EntitiesResponse, find_entities, reader_scope, stats_for
from graphwire.retrieval.graph.lookup import GraphStats

router = APIRouter(tags=["graph"])


@router.get("/entities", response_model=EntitiesResponse)
async def entities(
    graph: GraphDep,
    settings: SettingsDep,
    caller: PrincipalDep,
    retrieval: RetrievalDep,
    q: Annotated[str, Query(min_length=1, max_length=200, description="A name, alias or part of one.")],
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    label: Annotated[
        str | None, Query(description="Only this node label of the configured schema (e.g. Person).")
    ] = None,
) -> EntitiesResponse:
    """Entities whose name or alias matches `q` (exact, prefix, substring, then fuzzy), best first."""
    scope = await run_in_threadpool(reader_scope, retrieval, caller.reader())
    return await run_in_threadpool(find_entities, graph, settings, q, limit, label, scope)


@router.get("/graph/stats", response_model=GraphStats)
async def stats(graph: GraphDep, caller: PrincipalDep, retrieval: RetrievalDep) -> GraphStats:
    """Node counts per label and relationship counts per type: of the whole graph, or, for a caller some documents
    are closed to, of the documents, chunks, entities and relationships it may read."""
    return await run_in_threadpool(stats_for, graph, retrieval, caller.reader())
