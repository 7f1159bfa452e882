"""What the graph routes (GET /v1/entities, /v1/graph/neighborhood, /v1/graph/path) and the MCP tools `find_entities`,
`neighbourhood` and `path` share: the same lookups, checks and errors. Blocking (Neo4j): call from a thread.

Errors are `ApiError`s: 422 `validation_error` (a blank name, an unknown label, the same entity at both ends);
404 `entity_not_found`; 409 `ambiguous_entity` with `details.candidates` (key, name, label, tier, score), retry with a
candidate's key; 404 `no_path` when no path exists within `max_hops`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphwire.app.errors import ApiError
from graphwire.core.access import Reader
from graphwire.core.clients.graph import Graph
from graphwire.core.schema import configured_schema
from graphwire.core.settings import Settings
from graphwire.retrieval.graph.lookup import EntityHit, lookup_entities
from graphwire.retrieval.paths import (
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


class EntitiesResponse(BaseModel):
    query: str = Field(description="The lookup text.")
    entities: list[EntityHit] = Field(description="Matching entities, best first.")


def require_whole_store(graph: Graph, reader: Reader) -> None:
    """403 for a reader some documents are closed to, once any document has an access list: these views are built
    from the whole graph, and cutting them to what a reader may read is not done yet (docs/security.md)."""
    if reader.unrestricted or not graph.read("access/any_restricted"):
        return
    raise ApiError(
        403,
        "forbidden",
        "some documents are closed to this caller, and entity, neighbourhood, path and graph-edit views are not yet "
        "cut to what it may read: use /v1/query or /v1/retrieve, or ask an admin",
    )


def find_entities(
    graph: Graph, settings: Settings, q: str, limit: int, label: str | None, reader: Reader
) -> EntitiesResponse:
    """Entities whose name or alias matches `q` (exact, prefix, substring, then fuzzy), best first; `label` must be
    one of the configured schema's (SCHEMA_PATH names it, not always the news one)."""
    require_whole_store(graph, reader)
    if not q.strip():
        raise ApiError(422, "validation_error", "q must not be blank")
    labels = configured_schema(settings).labels
    if label is not None and label not in labels:
        raise ApiError(422, "validation_error", f"unknown label {label!r}", {"labels": labels})
    return EntitiesResponse(query=q, entities=lookup_entities(graph, q, limit, label))


def resolve(graph: Graph, name: str, role: str) -> EntityRef:
    """One entity by name, alias or key, through the fuzzy lookup of `find_entities`."""
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


def entity_neighborhood(
    graph: Graph, settings: Settings, entity: str, hops: int, limit: int, reader: Reader
) -> Neighborhood:
    """The facts within `hops` hops of an entity, at most `limit` per hop, hub types of the schema left out."""
    require_whole_store(graph, reader)
    excluded = hub_types(configured_schema(settings))
    return neighborhood(graph, resolve(graph, entity, "entity"), hops, per_hop_limit=limit, excluded_types=excluded)


def entity_path(
    graph: Graph, settings: Settings, source: str, target: str, max_hops: int, reader: Reader
) -> EntityPath:
    """A shortest path between two entities over extracted facts, each hop with its supporting chunks."""
    require_whole_store(graph, reader)
    src, dst = resolve(graph, source, "source"), resolve(graph, target, "target")
    if src.key == dst.key:
        raise ApiError(422, "validation_error", f"source and target are the same entity ({src.key})")
    try:
        return shortest_path(graph, src, dst, max_hops, excluded_types=hub_types(configured_schema(settings)))
    except NoPathError as exc:
        details = {"source": src.model_dump(), "target": dst.model_dump(), "max_hops": max_hops}
        raise ApiError(404, "no_path", str(exc), details) from exc
