"""`mode=ppr` for the registry: PPR seeded by the graph retriever's stages 1-2 (aliases + tiered matching) and the
title/name dictionary, with relation cues from the schema's descriptions and passage seeds from the chunk store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.embeddings import Embedder, embedder_from_settings
from core.graph import Graph
from retrieval.graph.aliases import AliasStage, LlmAliasFn
from retrieval.graph.matching import EntityMatcher
from retrieval.graph.models import QuestionAnalysis
from retrieval.graph.names import NameIndexCache
from retrieval.models import EntityMatch
from retrieval.ppr.config import PPRConfig, PPRMethod, ScoringOptions
from retrieval.ppr.export import SnapshotCache
from retrieval.ppr.relations import RelationTypeScorer
from retrieval.ppr.retriever import PPRRetriever
from schema.model import load_schema

if TYPE_CHECKING:
    from retrieval.registry import RetrievalContext


class GraphStageMatcher:
    """Stages 1-2 of the graph retriever as a PPR seeder; its 0-100 scores scaled to 0-1."""

    def __init__(self, graph: Graph, llm_aliases: LlmAliasFn | None = None, name_index_ttl_s: float = 10.0) -> None:
        self.names = NameIndexCache(graph, ttl_s=name_index_ttl_s)
        self.aliases = AliasStage(llm_aliases)
        self.matcher = EntityMatcher(graph)

    def analyse(self, question: str) -> tuple[QuestionAnalysis, list[EntityMatch]]:
        """Stage 1's analysis and stage 2's matches (scores as the graph retriever gives them, 0-100)."""
        index = self.names.get()
        analysis = self.aliases.run(question, index)
        return analysis, self.matcher.match(analysis, index)

    def match(self, question: str) -> list[EntityMatch]:
        _, matches = self.analyse(question)
        return [m.model_copy(update={"score": m.score / 100.0}) for m in matches]


class ChunkStorePassageScorer:
    """Passage similarity from the Chroma chunk store (cosine), for passage seeds."""

    def __init__(self, chroma_client: object, collection: str, embedder: Embedder) -> None:
        from core.chunk_store import ChunkStore

        self.store = ChunkStore(chroma_client, collection, embedder)

    def score(self, question: str, top_n: int) -> dict[str, float]:
        return dict(self.store.query(question, top_n))


class LazyRelationScorer:
    """Embeds the schema's relationship descriptions on first use, not when the mode is built."""

    def __init__(self, embedder: Embedder, schema_path: Path | None) -> None:
        self.embedder = embedder
        self.schema_path = schema_path
        self._scorer: RelationTypeScorer | None = None

    def relevance(self, question: str) -> dict[str, float]:
        if self._scorer is None:
            schema = load_schema(self.schema_path)
            self._scorer = RelationTypeScorer(self.embedder, schema.relationship_types)
        return self._scorer.relevance(question)


def ppr_mode(ctx: RetrievalContext) -> PPRRetriever:
    settings = ctx.settings
    graph = ctx.require_graph()
    config = PPRConfig(
        scoring=ScoringOptions(
            damping=settings.ppr_damping,
            method=PPRMethod(settings.ppr_method),
            relation_cue_weight=settings.ppr_relation_cues,
            passage_seed_weight=settings.ppr_passage_seeds,
        )
    )
    embedder = embedder_from_settings(settings)
    llm_aliases = None
    if settings.llm_configured:
        from retrieval.aliases.llm import LLMAliasExtractor

        llm_aliases = LLMAliasExtractor(settings)
    passages = None
    if ctx.chroma is not None and settings.ppr_passage_seeds > 0:
        passages = ChunkStorePassageScorer(ctx.chroma(), settings.chroma_collection, embedder)
    return PPRRetriever(
        graph,
        SnapshotCache(graph, check_interval_s=settings.ppr_snapshot_check_s),
        config,
        matcher=GraphStageMatcher(graph, llm_aliases),
        passage_scorer=passages,
        relation_scorer=LazyRelationScorer(embedder, settings.schema_path) if settings.ppr_relation_cues > 0 else None,
    )
