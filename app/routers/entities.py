"""GET /v1/entities?q= (fuzzy entity lookup with labels and aliases) and GET /v1/graph/stats (counts)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import GraphDep, SettingsDep
from graphwire.app.errors import ApiError
from graphwire.core.schema import configured_schema
from graphwire.retrieval.graph.lookup import EntityHit, GraphStats, graph_stats, lookup_entities

router = APIRouter(tags=["graph"])


class EntitiesResponse(BaseModel):
    query: str = Field(description="The lookup text.")
    entities: list[EntityHit] = Field(description="Matching entities, best first.")


@router.get("/entities", response_model=EntitiesResponse)
async def entities(
    graph: GraphDep,
    settings: SettingsDep,
    q: Annotated[str, Query(min_length=1, max_length=200, description="A name, alias or part of one.")],
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    label: Annotated[
        str | None, Query(description="Only this node label of the configured schema (e.g. Person).")
    ] = None,
) -> EntitiesResponse:
    """Entities whose name or alias matches `q` (exact, prefix, substring, then fuzzy), best first."""
    if not q.strip():
        raise ApiError(422, "validation_error", "q must not be blank")
    labels = configured_schema(settings).labels  # the schema SCHEMA_PATH names, not always the news one
    if label is not None and label not in labels:
        raise ApiError(422, "validation_error", f"unknown label {label!r}", {"labels": labels})
    hits = await run_in_threadpool(lookup_entities, graph, q, limit, label)
    return EntitiesResponse(query=q, entities=hits)


@router.get("/graph/stats", response_model=GraphStats)
async def stats(graph: GraphDep) -> GraphStats:
    """Node counts per label and relationship counts per type."""
    return await run_in_threadpool(graph_stats, graph)
