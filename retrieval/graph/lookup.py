"""Fuzzy entity lookup for GET /v1/entities and graph statistics for GET /v1/graph/stats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from graphwire.core.clients.graph import Graph
from graphwire.core.names import match_form
from graphwire.retrieval.graph.matching import TIER_RANK, MatchPolicy, classify
from graphwire.retrieval.graph.names import name_variants
from graphwire.retrieval.models import MatchTier
from graphwire.retrieval.ppr.snapshot import GraphSnapshot

# A lookup is looser than question matching: any whole-token partial match is shown, best first.
_LOOKUP_POLICY = MatchPolicy(min_coverage=0.0, fuzzy_threshold=75.0)
SCOPED_DEPTH = 10  # a restricted reader's lookup reads this many times `limit` candidates before keeping its own


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


def _classified(query_norm: str, name: str, aliases: Sequence[str]) -> tuple[MatchTier, float] | None:
    best: tuple[MatchTier, float] | None = None
    for surface in {name, *aliases}:
        for variant in name_variants(surface):
            result = classify(query_norm, variant, _LOOKUP_POLICY)
            if result and (best is None or (TIER_RANK[result[0]], -result[1]) < (TIER_RANK[best[0]], -best[1])):
                best = result
    return best


def _fuzzy(query_norm: str, name: str) -> float:
    return round(float(fuzz.WRatio(query_norm, match_form(name))), 1)


def _grade(query_norm: str, name: str, aliases: list[str]) -> tuple[MatchTier, float]:
    return _classified(query_norm, name, aliases) or (MatchTier.FUZZY, _fuzzy(query_norm, name))


def _in_scope(rows: list[dict[str, Any]], query_norm: str, scope: GraphSnapshot) -> list[dict[str, Any]]:
    """The rows of entities `scope` holds, with its aliases, mentions and degree; a row that only an alias outside
    the scope made the full-text index return (neither the name nor a scope's alias matches) is left out."""
    out = []
    for row in rows:
        i = scope.entity_index.get(row["key"])
        if i is None:
            continue
        aliases = list(scope.entity_aliases[i])
        if _classified(query_norm, row["name"], aliases) is None and (
            _fuzzy(query_norm, row["name"]) < _LOOKUP_POLICY.fuzzy_threshold
        ):
            continue
        mentions, degree = int(scope.entity_mentions[i]), len(scope.incident[i])
        out.append({**row, "aliases": aliases, "mentions": mentions, "degree": degree})
    return out


def lookup_entities(
    graph: Graph, query: str, limit: int = 10, label: str | None = None, scope: GraphSnapshot | None = None
) -> list[EntityHit]:
    """Entities whose name or alias matches `query`, best first; with `scope` (a restricted reader's snapshot,
    retrieval/scope.py), only the entities, aliases, mentions and relationships its readable chunks support."""
    tokens = match_form(query).split()
    if not tokens:
        return []
    depth = max(limit * 3, 25) if scope is None else max(limit * SCOPED_DEPTH, 100)
    rows = graph.read("retrieve/entity_lookup", lucene=_lucene(tokens), limit=depth, label=label)
    if scope is not None:
        rows = _in_scope(rows, " ".join(tokens), scope)
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


def shares_store(graph: Graph) -> bool:
    """Whether another workspace has documents or entities in the store (then the count store counts them too)."""
    return bool(graph.read("store/shared_workspaces")[0]["shared"])


def graph_stats(graph: Graph, lists: list[list[str]] | None = None) -> GraphStats:
    """Counts of the workspace's graph (from the count store while no other workspace shares it), or with `lists` (a
    restricted reader's readable access lists, retrieval/scope.py) of what that reader may read (`access/graph_stats`,
    a scan)."""
    whole = lists is None and not shares_store(graph)
    rows = graph.read("retrieve/graph_stats") if whole else graph.read("access/graph_stats", lists=lists)
    return GraphStats(
        labels={r["name"]: r["count"] for r in rows if r["kind"] == "label"},
        relationship_types={r["name"]: r["count"] for r in rows if r["kind"] == "type"},
    )
