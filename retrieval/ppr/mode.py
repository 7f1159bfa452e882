"""`mode=ppr` for the registry: PPR seeded by the graph retriever's stages 1-2 (aliases + tiered matching) and the
title/name dictionary, with relation cues from the schema's descriptions and passage seeds from the chunk store."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graphwire.core.clients.embeddings import Embedder, embedder_from_settings
from graphwire.core.clients.graph import Graph
from graphwire.retrieval.graph.aliases import LlmAliasFn
from graphwire.retrieval.graph.models import QuestionAnalysis
from graphwire.retrieval.models import EntityMatch
from graphwire.retrieval.ppr.config import GraphOptions, PPRConfig, PPRMethod, ScoringOptions
from graphwire.retrieval.ppr.relations import RelationTypeScorer
from graphwire.retrieval.ppr.retriever import PassageScorer, PPRRetriever
from graphwire.schema.model import GraphSchema

if TYPE_CHECKING:
    from graphwire.core.clients.chunk_store import ChunkStore
    from graphwire.retrieval.flat.dense import DenseRetriever
    from graphwire.retrieval.registry import RetrievalContext
    from graphwire.retrieval.services import GraphServices


class GraphStageMatcher:
    """Stages 1-2 of the graph retriever as a PPR seeder; its 0-100 scores scaled to 0-1.

    The stages are those of `services` (the process's shared ones); `standalone` builds its own.
    """

    def __init__(self, services: GraphServices) -> None:
        self.services = services

    @classmethod
    def standalone(
        cls, graph: Graph, schema: GraphSchema, llm_aliases: LlmAliasFn | None = None, name_index_ttl_s: float = 10.0
    ) -> GraphStageMatcher:
        from graphwire.retrieval.services import GraphServices

        return cls(GraphServices(graph, schema, llm_aliases=llm_aliases, check_every_s=name_index_ttl_s))

    def analyse(self, question: str) -> tuple[QuestionAnalysis, list[EntityMatch]]:
        """Stage 1's analysis and stage 2's matches (scores as the graph retriever gives them, 0-100)."""
        return self.services.analyse(question)

    def match(self, question: str) -> list[EntityMatch]:
        _, matches = self.analyse(question)
        return [m.model_copy(update={"score": m.score / 100.0}) for m in matches]


class ChunkStorePassageScorer:
    """Passage similarity from the Chroma chunk store (cosine), for passage seeds; the client is asked for on the
    first question (a graph-only context opens no store it never reads)."""

    def __init__(self, chroma_client: Callable[[], object], collection: str, embedder: Embedder) -> None:
        self.chroma_client = chroma_client
        self.collection = collection
        self.embedder = embedder
        self._store: ChunkStore | None = None

    def score(self, question: str, top_n: int) -> dict[str, float]:
        if self._store is None:
            from graphwire.core.clients.chunk_store import ChunkStore

            self._store = ChunkStore(self.chroma_client(), self.collection, self.embedder)
        return dict(self._store.query(question, top_n))


class DensePassageScorer:
    """Passage similarity from a flat dense retriever: a restricted reader's, over the scoped vectors only."""

    def __init__(self, dense: DenseRetriever) -> None:
        self.dense = dense

    def score(self, question: str, top_n: int) -> dict[str, float]:
        return dict(self.dense.nearest(question, top_n))


class LazyRelationScorer:
    """Embeds the schema's relationship descriptions on first use, not when the mode is built."""

    def __init__(self, embedder: Embedder, schema: GraphSchema) -> None:
        self.embedder = embedder
        self.schema = schema
        self._scorer: RelationTypeScorer | None = None

    def relevance(self, question: str) -> dict[str, float]:
        if self._scorer is None:
            self._scorer = RelationTypeScorer(self.embedder, self.schema.relationship_types)
        return self._scorer.relevance(question)


def ppr_mode(ctx: RetrievalContext) -> PPRRetriever:
    settings = ctx.settings
    services = ctx.services()
    graph = services.graph
    config = PPRConfig(
        graph=GraphOptions.of(services.schema),
        scoring=ScoringOptions(
            damping=settings.ppr_damping,
            method=PPRMethod(settings.ppr_method),
            relation_cue_weight=settings.ppr_relation_cues,
            passage_seed_weight=settings.ppr_passage_seeds,
        ),
    )
    embedder = embedder_from_settings(settings)
    passages: PassageScorer | None = None
    if settings.ppr_passage_seeds > 0:
        from graphwire.retrieval.flat.dense import DenseRetriever

        dense = ctx.flat_retrievers()["vector"] if ctx.scope is not None else None
        if isinstance(dense, DenseRetriever):  # a restricted reader's view: seeds among the passages it may read
            passages = DensePassageScorer(dense)
        else:
            passages = ChunkStorePassageScorer(ctx.chroma_client, settings.chroma_collection, embedder)
    return PPRRetriever(
        graph,
        services.snapshots,
        config,
        matcher=GraphStageMatcher(services) if settings.ppr_seeds == "stages" else None,
        passage_scorer=passages,
        relation_scorer=LazyRelationScorer(embedder, services.schema) if settings.ppr_relation_cues > 0 else None,
        chunks=services.chunks,
    )
