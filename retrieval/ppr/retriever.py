"""`mode=ppr`: seed entities from the question, Personalized PageRank over the cached snapshot, ranked chunks out."""

from __future__ import annotations

import time
from typing import Any, Protocol

import numpy as np

from graphwire.core.clients.graph import Graph
from graphwire.retrieval.graph.chunks import ChunkCache
from graphwire.retrieval.models import EntityMatch, RankedChunk, RetrievalResult
from graphwire.retrieval.ppr.config import PPRConfig
from graphwire.retrieval.ppr.dictionary import DictionaryMatcher, EntityMatcher
from graphwire.retrieval.ppr.engine import PPREngine, WalkGraph
from graphwire.retrieval.ppr.export import SnapshotCache
from graphwire.retrieval.ppr.policies import RankingPolicy, TopK, rank
from graphwire.retrieval.ppr.snapshot import GraphSnapshot

TOP_ENTITIES_REPORTED = 10


class PassageScorer(Protocol):
    """Question-to-passage similarity (dense or lexical) for seeding passages as well as entities (HippoRAG 2)."""

    def score(self, question: str, top_n: int) -> dict[str, float]: ...


class RelationScorer(Protocol):
    """How relevant each relationship type is to the question (0-1), for relation cues."""

    def relevance(self, question: str) -> dict[str, float]: ...


class PPRRetriever:
    name = "ppr"

    def __init__(
        self,
        graph: Graph,
        cache: SnapshotCache | None = None,
        config: PPRConfig | None = None,
        matcher: EntityMatcher | None = None,
        passage_scorer: PassageScorer | None = None,
        policy: RankingPolicy | None = None,
        passage_seed_count: int = 5,
        relation_scorer: RelationScorer | None = None,
        use_dictionary: bool = True,
        chunks: ChunkCache | None = None,
    ) -> None:
        self.graph = graph
        self.chunks = chunks or ChunkCache(graph)  # the process's shared chunk cache when given
        self.cache = cache or SnapshotCache(graph)
        self.config = config or PPRConfig()
        self.matcher = matcher
        self.passage_scorer = passage_scorer
        self.policy = policy or TopK(k=50)
        self.passage_seed_count = passage_seed_count
        self.relation_scorer = relation_scorer
        self.use_dictionary = use_dictionary
        self._dictionary: tuple[GraphSnapshot, DictionaryMatcher] | None = None
        self._engine_cache: PPREngine | None = None

    def match(self, snapshot: GraphSnapshot, question: str) -> list[EntityMatch]:
        """The matcher's entities plus the title/name dictionary's, one per key (best score), scores in 0-1."""
        found: list[EntityMatch] = list(self.matcher.match(question)) if self.matcher is not None else []
        if self.use_dictionary or self.matcher is None:
            if self._dictionary is None or self._dictionary[0] is not snapshot:
                self._dictionary = (snapshot, DictionaryMatcher(snapshot))
            found += self._dictionary[1].match(question)
        best: dict[str, EntityMatch] = {}
        for m in found:
            if m.key not in best or m.score > best[m.key].score:
                best[m.key] = m
        return list(best.values())

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        timings: dict[str, float] = {}
        clock = time.perf_counter()

        def lap(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timings[name] = round((now - clock) * 1000, 2)
            clock = now

        walk = self.walk()
        snap = walk.snapshot
        lap("snapshot")
        matches = self.match(snap, question)
        entity_seeds = seed_weights(snap, matches)
        details: dict[str, Any] = {"snapshot": self.cache.stats(), "seeds": len(entity_seeds)}
        titled = titled_seeds(snap, entity_seeds)
        details["titled_seeds"] = titled
        # A question that names what a document is about has an anchor no passage similarity improves on (HotpotQA:
        # Recall@5 0.905 without passage seeds, 0.790 with); one that only names entities mentioned here and there
        # (news) needs them (MultiHop-RAG: Perfect@10 0.29 without, 0.53 with). bench/eval/{hotpotqa,full}
        passage_seeds = {} if titled else self._passage_seeds(snap, question, details)
        details["passage_seeds"] = len(passage_seeds)
        relevance = self._relevance(question, details) if entity_seeds else {}
        lap("seeds")
        if not entity_seeds and not passage_seeds:
            details["reason"] = "no entity of the question is in the graph"
            return RetrievalResult(mode=self.name, entities=matches, timings_ms=timings, details=details)
        run = self.engine(walk).run(entity_seeds, passage_seeds, relevance)
        lap("ppr")
        ranked = rank(run.chunk_scores, self.policy, top_k)
        chunks = self._load_chunks([(snap.chunk_ids[i], score) for i, score in ranked])
        lap("chunks")
        details["iterations"] = run.iterations
        details["method"] = "push" if self.engine(walk).uses_push else "power"
        details["top_entities"] = top_entities(snap, run.entity_scores)
        return RetrievalResult(mode=self.name, chunks=chunks, entities=matches, timings_ms=timings, details=details)

    def walk(self) -> WalkGraph:
        """The walk graph of the current snapshot (rebuilt when the graph changed)."""
        return self.cache.walk(self.config.graph)

    def engine(self, walk: WalkGraph) -> PPREngine:
        """One engine per walk graph (it precomputes per-entity chunk counts)."""
        if self._engine_cache is None or self._engine_cache.walk is not walk:
            self._engine_cache = PPREngine(walk, self.config.scoring)
        return self._engine_cache

    def _passage_seeds(self, snap: GraphSnapshot, question: str, details: dict[str, Any]) -> dict[int, float]:
        if self.passage_scorer is None or self.config.scoring.passage_seed_weight <= 0:
            return {}
        try:
            scored = self.passage_scorer.score(question, self.passage_seed_count)
        except Exception as exc:  # a missing or empty vector store only costs the passage seeds
            details["passage_seeds_error"] = str(exc)
            return {}
        return {snap.chunk_index[cid]: s for cid, s in scored.items() if cid in snap.chunk_index and s > 0}

    def _relevance(self, question: str, details: dict[str, Any]) -> dict[str, float]:
        if self.relation_scorer is None or self.config.scoring.relation_cue_weight <= 0:
            return {}
        relevance = self.relation_scorer.relevance(question)
        details["relation_cues"] = dict(sorted(relevance.items(), key=lambda kv: -kv[1])[:3])
        return relevance

    def _load_chunks(self, ranked: list[tuple[str, float]]) -> list[RankedChunk]:
        records = self.chunks.get_many([cid for cid, _ in ranked]) if ranked else {}
        # a chunk deleted since the snapshot was taken has no record and is skipped
        return [RankedChunk.from_record(records[cid], score) for cid, score in ranked if cid in records]


def titled_seeds(snap: GraphSnapshot, entity_seeds: dict[int, float]) -> int:
    """How many seed entities are a document's title entity."""
    return sum(1 for i in entity_seeds if i in snap.titled)


def seed_weights(snap: GraphSnapshot, matches: list[EntityMatch]) -> dict[int, float]:
    """Best match score per matched entity present in the snapshot (specificity is applied by the engine)."""
    seeds: dict[int, float] = {}
    for m in matches:
        idx = snap.entity_index.get(m.key)
        if idx is not None:
            seeds[idx] = max(seeds.get(idx, 0.0), m.score)
    return seeds


def top_entities(snap: GraphSnapshot, scores: np.ndarray) -> list[dict[str, Any]]:
    top = np.argsort(-scores)[:TOP_ENTITIES_REPORTED]
    return [{"key": snap.entity_keys[i], "name": snap.entity_names[i], "score": float(scores[i])} for i in top]
