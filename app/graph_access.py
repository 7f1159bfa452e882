"""What the graph routes (GET /v1/entities, /v1/graph/stats, /v1/graph/neighborhood, /v1/graph/path) and the MCP
tools `find_entities`, `neighbourhood` and `path` share: the same lookups, checks and errors. Blocking (Neo4j): call
from a thread.

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
from graphwire.retrieval.access import AccessUnknownError, access_map
from graphwire.retrieval.graph.lookup import EntityHit, GraphStats, graph_stats, lookup_entities
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
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.retrieval.registry import RetrievalContext
from graphwire.retrieval.scope import Scope


class EntitiesResponse(BaseModel):
    query: str = Field(description="The lookup text.")
    entities: list[EntityHit] = Field(description="Matching entities, best first.")


def require_whole_store(graph: Graph, reader: Reader) -> None:
    """403 for a reader some documents are closed to, once any document has an access list: the graph's export,
    import and edits are of the whole graph (docs/security.md)."""
    if reader.unrestricted or not graph.read("access/any_restricted"):
        return
    raise ApiError(
        403,
        "forbidden",
        "some documents are closed to this caller, and the graph's export, import and edits are views of the whole "
        "graph: use the counts, entity, neighbourhood and path views, /v1/query or /v1/retrieve, or ask an admin",
    )


def _scope(retrieval: RetrievalContext, reader: Reader) -> Scope | None:
    if reader.unrestricted:
        return None
    try:
        return access_map(retrieval).scope(reader)
    except AccessUnknownError as exc:
        raise ApiError(403, "forbidden", str(exc)) from exc


def reader_scope(retrieval: RetrievalContext, reader: Reader) -> GraphSnapshot | None:
    """The snapshot of what `reader` may read (retrieval/scope.py), or None when it may read everything."""
    scope = _scope(retrieval, reader)
    return None if scope is None else retrieval.scoped(scope).services().snapshots.snapshot()


def stats_for(graph: Graph, retrieval: RetrievalContext, reader: Reader) -> GraphStats:
    """Node and relationship counts of the whole graph, or of what `reader` may read when some documents are closed
    to it."""
    scope = _scope(retrieval, reader)
    return graph_stats(graph, None if scope is None else scope.lists)


def find_entities(
    graph: Graph, settings: Settings, q: str, limit: int, label: str | None, scope: GraphSnapshot | None
) -> EntitiesResponse:
    """Entities whose name or alias matches `q` (exact, prefix, substring, then fuzzy), best first; `label` must be
    one of the configured schema's (SCHEMA_PATH names it, not always the news one); `scope`: a restricted reader's
    (`reader_scope`), of whose entities, aliases, mentions and relationships only the readable are shown."""
    if not q.strip():
        raise ApiError(422, "validation_error", "q must not be blank")
    labels = configured_schema(settings).labels
    if label is not None and label not in labels:
        raise ApiError(422, "validation_error", f"unknown label {label!r}", {"labels": labels})
    return EntitiesResponse(query=q, entities=lookup_entities(graph, q, limit, label, scope))


def resolve(graph: Graph, name: str, role: str, scope: GraphSnapshot | None) -> EntityRef:
    """One entity by name, alias or key, through the fuzzy lookup of `find_entities`."""
    if not name.strip():
        raise ApiError(422, "validation_error", f"{role} must not be blank")
    try:
        return resolve_entity(graph, name, scope)
    except EntityNotFoundError as exc:
        raise ApiError(404, "entity_not_found", f"{role}: {exc}", {"role": role, "name": name}) from exc
    except AmbiguousEntityError as exc:
        candidates = [c.model_dump(include={"key", "name", "label", "tier", "score"}) for c in exc.candidates]
        raise ApiError(
            409, "ambiguous_entity", f"{role}: {exc}", {"role": role, "name": name, "candidates": candidates}
        ) from exc


def entity_neighborhood(
    graph: Graph, settings: Settings, entity: str, hops: int, limit: int, scope: GraphSnapshot | None
) -> Neighborhood:
    """The facts within `hops` hops of an entity, at most `limit` per hop, hub types of the schema left out; a
    restricted reader's `scope` holds the entities and facts it may see."""
    excluded = hub_types(configured_schema(settings))
    start = resolve(graph, entity, "entity", scope)
    return neighborhood(graph, start, hops, per_hop_limit=limit, excluded_types=excluded, scope=scope)


def entity_path(
    graph: Graph, settings: Settings, source: str, target: str, max_hops: int, scope: GraphSnapshot | None
) -> EntityPath:
    """A shortest path between two entities over extracted facts, each hop with its supporting chunks; a restricted
    reader's `scope` holds the entities and facts it may walk."""
    src, dst = resolve(graph, source, "source", scope), resolve(graph, target, "target", scope)
    if src.key == dst.key:
        raise ApiError(422, "validation_error", f"source and target are the same entity ({src.key})")
    excluded = hub_types(configured_schema(settings))
    try:
        return shortest_path(graph, src, dst, max_hops, excluded_types=excluded, scope=scope)
    except NoPathError as exc:
        details = {"source": src.model_dump(), "target": dst.model_dump(), "max_hops": max_hops}
        raise ApiError(404, "no_path", str(exc), details) from exc
