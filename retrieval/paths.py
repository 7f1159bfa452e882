"""k-hop neighbourhoods and shortest paths between entities, with provenance: the textbook graph patterns.

Names are resolved with the same fuzzy lookup as GET /v1/entities (exact, prefix, substring, fuzzy). A name that
fits several entities equally well is ambiguous: the caller gets the candidates (with keys) and may retry with a key.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from graphwire.core.clients.graph import Graph
from graphwire.retrieval.graph.lookup import EntityHit, lookup_entities
from graphwire.retrieval.models import MatchTier
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.retrieval.scope import readable_support
from graphwire.schema.model import GraphSchema

MAX_HOPS_NEIGHBORHOOD = 3
MAX_HOPS_PATH = 6
CHARS_PER_TOKEN = 4  # the usual approximation for English text
CANDIDATES_SHOWN = 5


class EntityRef(BaseModel):
    key: str = Field(description="Unique key of the entity, `<Label>:<normalised name>`.")
    name: str = Field(description="Display name.")
    label: str = Field(description="Entity type.")


class EntityNotFoundError(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"no entity matches {name!r}")
        self.name = name


class AmbiguousEntityError(LookupError):
    def __init__(self, name: str, candidates: list[EntityHit]) -> None:
        super().__init__(f"{name!r} matches {len(candidates)} entities; retry with one of their keys")
        self.name = name
        self.candidates = candidates


def resolve_entity(graph: Graph, name: str, scope: GraphSnapshot | None = None) -> EntityRef:
    """An entity key, or the single best lookup hit: unique at its tier, and exact unless the only hit. With `scope`
    (a restricted reader's snapshot, retrieval/scope.py), only its entities: any other is not found."""
    by_key = graph.read("graph/entity_by_key", key=name.strip())
    if by_key and (scope is None or by_key[0]["key"] in scope.entity_index):
        return EntityRef(**by_key[0])
    hits = lookup_entities(graph, name, limit=CANDIDATES_SHOWN, scope=scope)
    if not hits:
        raise EntityNotFoundError(name)
    best = hits[0]
    same_tier = [h for h in hits if h.tier == best.tier and h.score == best.score]
    if len(same_tier) > 1 or (best.tier is not MatchTier.EXACT and len(hits) > 1):
        raise AmbiguousEntityError(name, hits)
    return EntityRef(key=best.key, name=best.name, label=best.label)


class ChunkSource(BaseModel):
    chunk_id: str = Field(description="A chunk the fact was extracted from.")
    document_id: str | None = Field(default=None, description="Its article's id.")
    title: str | None = Field(default=None, description="Its article's title.")
    source: str | None = Field(default=None, description="Its article's outlet.")
    published_at: date | None = Field(default=None, description="Its article's publication date.")


class GraphFact(BaseModel):
    subject: str = Field(description="Name of the relationship's start node.")
    subject_key: str = Field(description="Key of the start node.")
    subject_label: str = Field(description="Label of the start node.")
    relationship: str = Field(description="Relationship type.")
    object: str = Field(description="Name of the relationship's end node.")
    object_key: str = Field(description="Key of the end node.")
    object_label: str = Field(description="Label of the end node.")
    chunk_ids: list[str] = Field(default_factory=list, description="Chunks the fact was extracted from.")
    evidence: list[str] = Field(default_factory=list, description="Evidence sentences, one per chunk id.")

    def render(self) -> str:
        return f"{self.subject} -[{self.relationship}]-> {self.object}"


class Hop(BaseModel):
    hop: int = Field(description="Distance from the entity (1 = its own relationships).")
    facts: list[GraphFact] = Field(description="Facts first reached at this distance.")
    new_facts: int = Field(description="How many facts this hop adds.")
    new_entities: int = Field(description="How many entities this hop reaches for the first time.")
    approx_tokens: int = Field(description="Approximate tokens of the rendered facts plus evidence of this hop.")
    cumulative_facts: int = Field(description="Facts up to and including this hop.")
    cumulative_tokens: int = Field(description="Approximate tokens up to and including this hop.")
    truncated: bool = Field(description="The hop hit its fact limit; more facts exist at this distance.")


class Neighborhood(BaseModel):
    entity: EntityRef = Field(description="The entity the name resolved to.")
    hops: list[Hop] = Field(description="Facts by distance, nearest first.")
    excluded_types: list[str] = Field(
        description="Relationship types not followed (hubs such as the schema's reported-by type)."
    )


def _tokens(fact: GraphFact) -> int:
    chars = len(fact.render()) + sum(len(e) for e in fact.evidence)
    return max(1, round(chars / CHARS_PER_TOKEN))


def hub_types(schema: GraphSchema) -> tuple[str, ...]:
    """The types paths and neighbourhoods do not follow: the schema's reported-by type (every entity of a document
    links to the document's outlet: a hub, not a fact)."""
    return (schema.roles.reported_by_type,)


def neighborhood(
    graph: Graph,
    entity: EntityRef,
    hops: int,
    per_hop_limit: int = 50,
    *,
    excluded_types: tuple[str, ...],
    scope: GraphSnapshot | None = None,
) -> Neighborhood:
    """Facts within `hops` hops, hop by hop, each hop listing only facts not seen closer to the entity.
    `excluded_types`: types not followed (`hub_types(schema)`); `scope`: a restricted reader's snapshot, whose
    relationships and readable chunks alone are read (retrieval/scope.py)."""
    if not 1 <= hops <= MAX_HOPS_NEIGHBORHOOD:
        raise ValueError(f"hops must be between 1 and {MAX_HOPS_NEIGHBORHOOD}")
    seen_facts: set[str] = set()
    seen_entities = {entity.key}
    frontier = [entity.key]
    out: list[Hop] = []
    total_facts = total_tokens = 0
    for hop in range(1, hops + 1):
        if not frontier:
            rows = []
        elif scope is not None:
            rows = ScopedFacts(graph, scope).hop(frontier, excluded_types, per_hop_limit + 1)
        else:
            rows = graph.read(
                "graph/neighborhood_hop", keys=frontier, exclude_types=list(excluded_types), limit=per_hop_limit + 1
            )
        truncated = len(rows) > per_hop_limit
        facts: list[GraphFact] = []
        next_frontier: list[str] = []
        for row in rows[:per_hop_limit]:
            if row["id"] in seen_facts:
                continue
            seen_facts.add(row["id"])
            facts.append(GraphFact(**{k: v for k, v in row.items() if k != "id"}))
            for key in (row["subject_key"], row["object_key"]):
                if key not in seen_entities:
                    seen_entities.add(key)
                    next_frontier.append(key)
        tokens = sum(_tokens(f) for f in facts)
        total_facts += len(facts)
        total_tokens += tokens
        out.append(
            Hop(
                hop=hop,
                facts=facts,
                new_facts=len(facts),
                new_entities=len(next_frontier),
                approx_tokens=tokens,
                cumulative_facts=total_facts,
                cumulative_tokens=total_tokens,
                truncated=truncated,
            )
        )
        frontier = next_frontier
    return Neighborhood(entity=entity, hops=out, excluded_types=list(excluded_types))


class PathStep(BaseModel):
    """One hop of a path, in the direction walked (`from_entity` -> `to_entity`), with the stored fact's direction."""

    step: int = Field(description="Position on the path, from 1.")
    from_entity: EntityRef = Field(description="Where this step starts.")
    to_entity: EntityRef = Field(description="Where this step ends.")
    fact: GraphFact = Field(description="The stored relationship walked.")
    forward: bool = Field(description="True when the stored relationship points from from_entity to to_entity.")
    sources: list[ChunkSource] = Field(default_factory=list, description="The chunks behind the fact.")


class EntityPath(BaseModel):
    source: EntityRef = Field(description="The start entity the name resolved to.")
    target: EntityRef = Field(description="The end entity the name resolved to.")
    length: int = Field(description="Number of relationships on the path.")
    steps: list[PathStep] = Field(description="The path, step by step from source to target.")


class NoPathError(LookupError):
    def __init__(self, source: EntityRef, target: EntityRef, max_hops: int) -> None:
        super().__init__(f"no path between {source.name!r} and {target.name!r} within {max_hops} hops")
        self.max_hops = max_hops


def _published(value: Any) -> Any:
    return value.to_native() if hasattr(value, "to_native") else value


def shortest_path(
    graph: Graph,
    source: EntityRef,
    target: EntityRef,
    max_hops: int = MAX_HOPS_PATH,
    *,
    excluded_types: tuple[str, ...],
    scope: GraphSnapshot | None = None,
) -> EntityPath:
    """One shortest path over entity-entity facts; raises NoPathError when none exists within `max_hops`.
    `excluded_types`: types not followed (`hub_types(schema)`); `scope`: a restricted reader's snapshot, whose
    relationships and readable chunks alone are walked (retrieval/scope.py)."""
    if not 1 <= max_hops <= MAX_HOPS_PATH:
        raise ValueError(f"max_hops must be between 1 and {MAX_HOPS_PATH}")
    if source.key == target.key:
        raise ValueError("source and target are the same entity")
    if scope is not None:
        rows = ScopedFacts(graph, scope).path(source.key, target.key, max_hops, excluded_types)
    else:
        rows = graph.read(
            f"graph/shortest_path_{max_hops}", source=source.key, target=target.key, exclude_types=list(excluded_types)
        )
    if not rows:
        raise NoPathError(source, target, max_hops)
    nodes = [EntityRef(**n) for n in rows[0]["nodes"]]
    by_key = {n.key: n for n in nodes}
    chunk_ids = sorted({c for h in rows[0]["hops"] for c in h["chunk_ids"]})
    sources = {
        r["chunk_id"]: ChunkSource(**{**r, "published_at": _published(r["published_at"])})
        for r in (graph.read("graph/chunk_sources", ids=chunk_ids) if chunk_ids else [])
    }
    steps = []
    for i, hop in enumerate(rows[0]["hops"]):
        subj, obj = by_key[hop["subject_key"]], by_key[hop["object_key"]]
        fact = GraphFact(
            subject=subj.name,
            subject_key=subj.key,
            subject_label=subj.label,
            relationship=hop["relationship"],
            object=obj.name,
            object_key=obj.key,
            object_label=obj.label,
            chunk_ids=hop["chunk_ids"],
            evidence=hop["evidence"],
        )
        steps.append(
            PathStep(
                step=i + 1,
                from_entity=nodes[i],
                to_entity=nodes[i + 1],
                fact=fact,
                forward=subj.key == nodes[i].key,
                sources=[sources[c] for c in hop["chunk_ids"] if c in sources],
            )
        )
    return EntityPath(source=source, target=target, length=len(steps), steps=steps)


class ScopedFacts:
    """Neighbourhood hops and shortest paths over a restricted reader's snapshot (`GraphSnapshot.restricted`): the
    relationships its readable chunks support, each with those chunks and their evidence sentences (read from Neo4j,
    `graph/relation_evidence`), in the rows the statements of the whole graph return."""

    def __init__(self, graph: Graph, scope: GraphSnapshot) -> None:
        self.graph = graph
        self.scope = scope

    def hop(self, keys: list[str], excluded: tuple[str, ...], limit: int) -> list[dict[str, Any]]:
        """`graph/neighborhood_hop`'s rows: the relationships touching `keys`, best supported first."""
        snap = self.scope
        found = {r for k in keys if (i := snap.entity_index.get(k)) is not None for r in snap.incident[i]}
        kept = [r for r in found if snap.rel_types[r] not in excluded]
        names, support = snap.entity_names, np.diff(snap.rel_chunks.indptr)
        kept.sort(
            key=lambda r: (
                -support[r],
                names[snap.rel_source[r]],
                snap.rel_types[r],
                names[snap.rel_target[r]],
            )
        )
        return [{"id": str(r), **row} for r, row in zip(kept[:limit], self._facts(kept[:limit]), strict=True)]

    def path(self, source: str, target: str, max_hops: int, excluded: tuple[str, ...]) -> list[dict[str, Any]]:
        """A shortest path's row as `graph/shortest_path_N` gives it (none when there is none), found breadth
        first over the scope's relationships in either direction, lowest indices first."""
        snap = self.scope
        start, goal = snap.entity_index.get(source), snap.entity_index.get(target)
        if start is None or goal is None:
            return []
        via: dict[int, tuple[int, int]] = {start: (-1, -1)}  # entity -> (previous entity, relationship)
        frontier = [start]
        for _ in range(max_hops):
            reached: list[int] = []
            for e in frontier:
                for r in snap.incident[e]:
                    if snap.rel_types[r] in excluded:
                        continue
                    other = int(snap.rel_target[r] if snap.rel_source[r] == e else snap.rel_source[r])
                    if other not in via:
                        via[other] = (e, r)
                        reached.append(other)
            if goal in via:
                return [self._path_row(via, goal)]
            frontier = reached
        return []

    def _path_row(self, via: dict[int, tuple[int, int]], goal: int) -> dict[str, Any]:
        snap = self.scope
        entities, relations = [goal], []
        while via[entities[-1]][0] >= 0:
            previous, r = via[entities[-1]]
            relations.append(r)
            entities.append(previous)
        entities.reverse()
        relations.reverse()
        nodes = [
            {"key": snap.entity_keys[e], "name": snap.entity_names[e], "label": snap.entity_labels[e]} for e in entities
        ]
        hops = [
            {"relationship": f["relationship"], "subject_key": f["subject_key"], "object_key": f["object_key"],
             "chunk_ids": f["chunk_ids"], "evidence": f["evidence"]}
            for f in self._facts(relations)
        ]  # fmt: skip
        return {"nodes": nodes, "hops": hops}

    def _facts(self, relations: list[int]) -> list[dict[str, Any]]:
        """Each relationship as a fact row, its chunk ids and evidence sentences cut to the scope's chunks."""
        snap = self.scope
        ends = [(snap.rel_source[r], snap.rel_types[r], snap.rel_target[r]) for r in relations]
        wanted = [{"source": snap.entity_keys[s], "type": t, "target": snap.entity_keys[o]} for s, t, o in ends]
        stored = {
            (row["source"], row["type"], row["target"]): row
            for row in (self.graph.read("graph/relation_evidence", relations=wanted) if wanted else [])
        }
        out = []
        for (s, t, o), want in zip(ends, wanted, strict=True):
            row = stored.get((want["source"], t, want["target"]), {"chunk_ids": [], "evidence": []})
            chunk_ids, evidence = readable_support(row["chunk_ids"] or [], row["evidence"] or [], snap.chunk_index)
            keys, names, labels = snap.entity_keys, snap.entity_names, snap.entity_labels
            out.append(
                {"subject_key": keys[s], "subject": names[s], "subject_label": labels[s], "relationship": t,
                 "object_key": keys[o], "object": names[o], "object_label": labels[o],
                 "chunk_ids": chunk_ids, "evidence": evidence}
            )  # fmt: skip
        return out
