"""Fuzzy entity lookup for GET /v1/entities and graph statistics for GET /v1/graph/stats."""

from __future__ import annotations

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from graphwire.core.clients.graph import Graph
from graphwire.core.names import match_form
from graphwire.retrieval.graph.matching import TIER_RANK, MatchPolicy, classify
from graphwire.retrieval.graph.names import name_variants
from graphwire.retrieval.models import MatchTier

# A lookup is looser than question matching: any whole-token partial match is shown, best first.
_LOOKUP_POLICY = MatchPolicy(min_coverage=0.0, fuzzy_threshold=75.0)


class EntityHit(BaseModel):
    key: str = Field(description="Unique key of the entity, `<Label>:<normalised name>`.")
    name: str = Field(description="Display name.")
    label: str = Field(description="Entity type.")
    aliases: list[str] = Field(default_factory=list, description="Other names the entity is known by.")
    tier: MatchTier = Field(description="How the query matched: exact, prefix, substring or fuzzy.")
    score: float = Field(description="Match score, 0-100.")
    mentions: int = Field(default=0, description="Chunks that mention the entity.")
    degree: int = Field(default=0, description="Relationships of the entity to other entities.")


class GraphStats(BaseModel):
    labels: dict[str, int] = Field(description="Nodes per label.")
    relationship_types: dict[str, int] = Field(description="Relationships per type.")


def _lucene(tokens: list[str]) -> str:
    prefix = " AND ".join(f"{t}*" for t in tokens)
    fuzzy = " AND ".join(f"{t}~1" if len(t) >= 4 else t for t in tokens)
    return f"({prefix}) OR ({fuzzy})"


def _grade(query_norm: str, name: str, aliases: list[str]) -> tuple[MatchTier, float]:
    best: tuple[MatchTier, float] | None = None
    for surface in {name, *aliases}:
        for variant in name_variants(surface):
            result = classify(query_norm, variant, _LOOKUP_POLICY)
            if result and (best is None or (TIER_RANK[result[0]], -result[1]) < (TIER_RANK[best[0]], -best[1])):
                best = result
    if best is not None:
        return best
    return MatchTier.FUZZY, round(float(fuzz.WRatio(query_norm, match_form(name))), 1)


def lookup_entities(graph: Graph, query: str, limit: int = 10, label: str | None = None) -> list[EntityHit]:
    tokens = match_form(query).split()
    if not tokens:
        return []
    rows = graph.read("retrieve/entity_lookup", lucene=_lucene(tokens), limit=max(limit * 3, 25), label=label)
    hits = []
    for row in rows:
        tier, score = _grade(" ".join(tokens), row["name"], list(row["aliases"] or []))
        hits.append(
            EntityHit(
                key=row["key"],
                name=row["name"],
                label=row["label"],
                aliases=[a for a in row["aliases"] or [] if a != row["name"]],
                tier=tier,
                score=score,
                mentions=row["mentions"],
                degree=row["degree"],
            )
        )
    hits.sort(key=lambda h: (TIER_RANK[h.tier], -h.score, -h.mentions, h.name))
    return hits[:limit]


def graph_stats(graph: Graph) -> GraphStats:
    rows = graph.read("retrieve/graph_stats")
    return GraphStats(
        labels={r["name"]: r["count"] for r in rows if r["kind"] == "label"},
        relationship_types={r["name"]: r["count"] for r in rows if r["kind"] == "type"},
    )
