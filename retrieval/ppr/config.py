"""Everything that shapes the PPR graph and its scoring, in one typed object (the ablation varies these fields)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from graphwire.core.settings import PPRMethod, default_of  # one definition: PPR_METHOD takes the same values
from graphwire.schema.model import GraphSchema

__all__ = ["ChunkScoring", "EdgeDirection", "GraphOptions", "PPRConfig", "PPRMethod", "ScoringOptions"]


class EdgeDirection(StrEnum):
    BOTH = "both"  # entity-entity relationships walkable both ways (HippoRAG: undirected graph)
    FORWARD = "forward"  # subject -> object only
    BACKWARD = "backward"  # object -> subject only


class ChunkScoring(StrEnum):
    PASSAGE = "passage"  # the PPR mass on the chunk's own node (HippoRAG 2: passages are graph nodes)
    RELATIONS = "relations"  # entity -> relationship -> chunk propagation (FastGraphRAG)
    MIXED = "mixed"  # both, each normalised to sum 1, added


REPORTED_BY_WEIGHT = 0.1


class GraphOptions(BaseModel):
    """How the snapshot's weighted adjacency is built from the exported rows."""

    direction: EdgeDirection = EdgeDirection.BOTH
    relation_weight: float = Field(default=1.0, ge=0.0)
    weight_by_support: bool = False  # multiply a relationship's weight by how many chunks support it
    mention_weight: float = Field(default=1.0, ge=0.0)
    weight_by_mentions: bool = False  # multiply a MENTIONS weight by its `count`
    title_weight: float = Field(default=5.0, ge=0.0)  # extra weight on the edge between a passage and its title entity
    synonym_threshold: float | None = Field(default=90.0, ge=0.0, le=100.0)  # rapidfuzz ratio; None = no synonym edges
    synonym_weight: float = Field(default=1.0, ge=0.0)
    cooccurrence_weight: float = Field(default=0.3, ge=0.0)  # entity-entity edges per shared sentence; 0 = none
    type_weights: dict[str, float] = Field(default_factory=dict)  # relationship type -> weight factor (default 1)

    @classmethod
    def of(cls, schema: GraphSchema, **fields: object) -> GraphOptions:
        """The options for a graph of `schema`: its reported-by type, a hub (every entity of a document links to
        the document's outlet), walked at REPORTED_BY_WEIGHT."""
        return cls.model_validate({"type_weights": {schema.roles.reported_by_type: REPORTED_BY_WEIGHT}, **fields})


class ScoringOptions(BaseModel):
    """How seeds are weighted, how PPR runs and how chunk scores are read off the result."""

    damping: float = Field(default=default_of("ppr_damping"), gt=0.0, lt=1.0)  # 0.5 HippoRAG 2, 0.85 FastGraphRAG
    tolerance: float = Field(default=1e-6, gt=0.0)
    max_iterations: int = Field(default=100, ge=1)
    method: PPRMethod = default_of("ppr_method")
    push_epsilon: float = Field(default=1e-6, gt=0.0)  # forward push: residual threshold per out-edge
    push_above_edges: int = Field(default=500_000, ge=0)  # AUTO switches to push above this many walk edges
    node_specificity: bool = True  # divide a seed's weight by the number of chunks that mention it
    # share of the restart mass on similar passages (questions naming no title entity only: retrieval/ppr/retriever.py)
    passage_seed_weight: float = Field(default=default_of("ppr_passage_seeds"), ge=0.0, le=1.0)
    chunk_scoring: ChunkScoring = ChunkScoring.PASSAGE
    # Share of the restart mass moved along the seeds' relationships whose type the question asks about
    # (relation cues: "director of X" favours X's DIRECTED neighbour); used when a relation scorer is given.
    relation_cue_weight: float = Field(default=default_of("ppr_relation_cues"), ge=0.0, le=1.0)


class PPRConfig(BaseModel):
    graph: GraphOptions = Field(default_factory=GraphOptions)
    scoring: ScoringOptions = Field(default_factory=ScoringOptions)
