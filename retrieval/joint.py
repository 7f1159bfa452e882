"""`mode=joint`: dense, lexical and graph evidence in one ranking (the default mode).

One pass per question, every signal over the same chunks, fused by reciprocal rank:
- `flat`: the flat+ ranking (dense + BM25 + named outlets, dates, one pick per outlet and claim);
- `dense`, `lexical`: the question's cosine similarity and BM25 score on their own;
- `entity_walk`: Personalized PageRank from the entities the question names (title entities first);
- `passage_walk`: Personalized PageRank from the passages dense similarity ranks first (HippoRAG 2: the walk starts
  from what dense retrieval already knows and adds what only links reveal: the bridge passage that shares an entity
  with the first one but few words with the question).

The question is embedded once (with flat+'s clauses, in one batch); both walks run over the process's one PPR
snapshot. Then the ranking is made diverse by document: at most `per_document` chunks of one document before every
other candidate has had its place, so one long article cannot fill the top of the list. Weights and the rule's
evidence: bench/joint_tune.md. Nothing here calls another mode, so a mode that fills from `joint` runs each stage once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field

from graphwire.retrieval.flat.common import ranked_chunks
from graphwire.retrieval.flat.fusion import ranks_of
from graphwire.retrieval.flat.index import IndexSnapshot, Scores, WordCase
from graphwire.retrieval.flat.plus import FlatPlusRetriever
from graphwire.retrieval.models import EntityMatch, MatchTier, RetrievalResult
from graphwire.retrieval.ppr.retriever import PPRRetriever, seed_weights, top_entities
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.retrieval.timing import StageTimer

if TYPE_CHECKING:
    from graphwire.retrieval.registry import RetrievalContext

SIGNALS = ("flat", "dense", "lexical", "entity_walk", "passage_walk")


class JointConfig(BaseModel):
    """Reciprocal-rank weights of the five signals, and how the walk and the diversity rule are set up."""

    flat_weight: float = Field(default=1.0, ge=0.0)
    dense_weight: float = Field(default=1.0, ge=0.0)
    lexical_weight: float = Field(default=1.0, ge=0.0)
    entity_walk_weight: float = Field(default=1.0, ge=0.0)
    passage_walk_weight: float = Field(default=1.0, ge=0.0)
    passage_seeds: int = Field(default=20, ge=1)  # dense top passages that seed the passage walk
    rrf_k: int = Field(default=60, ge=1)
    per_document: int = Field(default=1, ge=0)  # chunks of one document before the others had a place; 0 = off

    def weights(self) -> dict[str, float]:
        return {name: float(getattr(self, f"{name}_weight")) for name in SIGNALS}


@dataclass(frozen=True)
class _Alignment:
    """Flat index positions <-> PPR snapshot chunk indexes, for one pair of snapshots."""

    flat: IndexSnapshot
    walk: GraphSnapshot
    walk_of_flat: np.ndarray  # flat position -> walk chunk index, -1 when the graph lacks the chunk

    @classmethod
    def of(cls, flat: IndexSnapshot, walk: GraphSnapshot) -> _Alignment:
        index = walk.chunk_index
        return cls(flat, walk, np.array([index.get(c.id, -1) for c in flat.chunks], dtype=np.int64))

    def on_flat(self, walk_scores: np.ndarray) -> Scores:
        present = self.walk_of_flat >= 0
        out = np.zeros(len(self.walk_of_flat), dtype=np.float64)
        out[present] = walk_scores[self.walk_of_flat[present]]
        return out


def linked_names(matches: list[EntityMatch], word_case: WordCase) -> list[EntityMatch]:
    """The matches that name something: not a lower-case phrase the corpus itself writes as common words ("house",
    "magazines" titling a page), not a one-word fuzzy match (an inflection: "German" for Germany)."""
    kept = []
    for match in matches:
        if not any(ch.isupper() for ch in match.mention) and word_case.is_common(match.mention):
            continue
        if match.tier is MatchTier.FUZZY and len(match.mention.split()) == 1:
            continue
        kept.append(match)
    return kept


def fuse(signals: dict[str, Scores], weights: dict[str, float], k: int) -> Scores:
    """Sum of weight / (k + rank) over the signals; a chunk a signal gives no positive score gets nothing from it."""
    size = len(next(iter(signals.values())))
    fused = np.zeros(size, dtype=np.float64)
    for name, scores in signals.items():
        weight = weights.get(name, 0.0)
        if weight > 0 and scores.any():
            fused += np.where(scores > 0, weight / (k + ranks_of(scores)), 0.0)
    return fused


def diverse_order(scores: Scores, document_ids: list[str], top_k: int, per_document: int) -> list[int]:
    """Positions best first, at most `per_document` chunks of one document until `top_k` places hold others."""
    positive = np.flatnonzero(scores > 0)
    order = positive[np.argsort(-scores[positive], kind="stable")]
    if per_document <= 0:
        return [int(i) for i in order[:top_k]]
    taken: dict[str, int] = {}
    head: list[int] = []
    held: list[int] = []
    for position in order:
        document = document_ids[position]
        if taken.get(document, 0) < per_document:
            taken[document] = taken.get(document, 0) + 1
            head.append(int(position))
            if len(head) >= top_k:
                break
        elif len(held) < top_k:
            held.append(int(position))
    return (head + held)[:top_k]


class JointRetriever:
    name = "joint"

    def __init__(self, flat: FlatPlusRetriever, ppr: PPRRetriever, config: JointConfig | None = None) -> None:
        self.flat = flat
        self.ppr = ppr
        self.config = config or JointConfig()
        self._alignment: _Alignment | None = None

    def _align(self, flat: IndexSnapshot, walk: GraphSnapshot) -> _Alignment:
        alignment = self._alignment
        if alignment is None or alignment.flat is not flat or alignment.walk is not walk:
            alignment = self._alignment = _Alignment.of(flat, walk)
        return alignment

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        timer = StageTimer()
        config = self.config
        with timer.stage("index"):
            snapshot = self.flat.index.snapshot()
            walk = self.ppr.walk()
            alignment = self._align(snapshot, walk.snapshot)
        features = self.flat.features(question, snapshot, timer)
        with timer.stage("flat"):
            _, flat_scores = self.flat.rank(snapshot, features, top_k)
        with timer.stage("seeds"):
            matches = linked_names(self.ppr.match(walk.snapshot, question), snapshot.word_case)
            entity_seeds = seed_weights(walk.snapshot, matches)
            passage_seeds = self._passage_seeds(features.dense, alignment)
        engine = self.ppr.engine(walk)
        with timer.stage("walk"):
            entity_run = engine.run(entity_seeds, {}) if entity_seeds else None
            passage_run = engine.run({}, passage_seeds) if passage_seeds else None
        signals = {
            "flat": flat_scores,
            "dense": features.dense,
            "lexical": features.lexical,
            "entity_walk": alignment.on_flat(entity_run.chunk_scores) if entity_run else np.zeros(len(snapshot)),
            "passage_walk": alignment.on_flat(passage_run.chunk_scores) if passage_run else np.zeros(len(snapshot)),
        }
        with timer.stage("fuse"):
            fused = fuse(signals, config.weights(), config.rrf_k)
            document_ids = [chunk.document_id for chunk in snapshot.chunks]
            positions = diverse_order(fused, document_ids, top_k, config.per_document)
        details: dict[str, Any] = {
            "seeds": len(entity_seeds),
            "passage_seeds": len(passage_seeds),
            "signals": _contributions(signals, positions, config.rrf_k),
            "publications": [m.name for m in features.analysis.publications],
        }
        if entity_run is not None:
            details["top_entities"] = top_entities(walk.snapshot, entity_run.entity_scores)
        return RetrievalResult(
            mode=self.name,
            chunks=ranked_chunks(snapshot, positions, fused),
            entities=matches,
            timings_ms=timer.finish(),
            details=details,
        )

    def _passage_seeds(self, dense: Scores, alignment: _Alignment) -> dict[int, float]:
        count = min(self.config.passage_seeds, len(dense))
        if count <= 0:
            return {}
        best = np.argpartition(-dense, count - 1)[:count]
        walk_index = alignment.walk_of_flat[best]
        return {int(w): float(dense[p]) for p, w in zip(best, walk_index, strict=True) if w >= 0 and dense[p] > 0}


def _contributions(signals: dict[str, Scores], positions: list[int], k: int) -> dict[str, int]:
    """How many returned chunks each signal ranks within its own top `len(positions)` (what each side brought)."""
    depth = len(positions)
    out: dict[str, int] = {}
    for name, scores in signals.items():
        if not scores.any():
            out[name] = 0
            continue
        ranks = ranks_of(scores)
        out[name] = sum(1 for p in positions if scores[p] > 0 and ranks[p] <= depth)
    return out


def joint_mode(ctx: RetrievalContext) -> JointRetriever:
    flat = ctx.retriever("flat_plus")
    ppr = ctx.retriever("ppr")
    if not isinstance(flat, FlatPlusRetriever) or not isinstance(ppr, PPRRetriever):
        raise TypeError("joint needs the flat+ and PPR retrievers")
    return JointRetriever(flat, ppr)
