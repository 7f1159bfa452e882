"""Personalized PageRank retrieval (HippoRAG 2 / FastGraphRAG style) over a cached CSR snapshot of the graph."""

from graphwire.retrieval.ppr.config import (
    ChunkScoring,
    EdgeDirection,
    GraphOptions,
    PPRConfig,
    PPRMethod,
    ScoringOptions,
)
from graphwire.retrieval.ppr.engine import (
    PPREngine,
    WalkGraph,
    build_walk_graph,
    personalized_pagerank,
    push_personalized_pagerank,
)
from graphwire.retrieval.ppr.export import SnapshotCache, export_snapshot
from graphwire.retrieval.ppr.policies import Elbow, RankingPolicy, Threshold, TopK, make_policy, rank
from graphwire.retrieval.ppr.retriever import PPRRetriever
from graphwire.retrieval.ppr.snapshot import EntityRow, GraphSnapshot, MentionRow, RelationRow, build_snapshot

__all__ = [
    "ChunkScoring",
    "EdgeDirection",
    "Elbow",
    "EntityRow",
    "GraphOptions",
    "GraphSnapshot",
    "MentionRow",
    "PPRConfig",
    "PPREngine",
    "PPRMethod",
    "PPRRetriever",
    "RankingPolicy",
    "RelationRow",
    "ScoringOptions",
    "SnapshotCache",
    "Threshold",
    "TopK",
    "WalkGraph",
    "build_snapshot",
    "build_walk_graph",
    "export_snapshot",
    "make_policy",
    "personalized_pagerank",
    "push_personalized_pagerank",
    "rank",
]
