"""Personalized PageRank over a snapshot: the weighted walk matrix, power iteration and chunk scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse

from retrieval.ppr.config import ChunkScoring, EdgeDirection, GraphOptions, ScoringOptions
from retrieval.ppr.snapshot import GraphSnapshot
from retrieval.ppr.synonyms import synonym_pairs

FloatArray = npt.NDArray[np.float64]


@dataclass
class WalkGraph:
    """The snapshot as a random walk: transposed row-stochastic transition matrix plus what chunk scoring needs."""

    snapshot: GraphSnapshot
    transition_t: sparse.csr_matrix  # N x N, column j holds the out-probabilities of node j
    dangling: npt.NDArray[np.bool_]  # nodes without out-edges; their mass restarts at the seeds
    rel_incidence: sparse.csr_matrix  # R x E, 1 at both endpoints of each relationship
    n_synonym_edges: int = 0


def _relation_edges(snap: GraphSnapshot, opts: GraphOptions) -> tuple[FloatArray, FloatArray, FloatArray]:
    weights = np.full(snap.n_relations, opts.relation_weight, dtype=np.float64)
    if opts.type_weights:
        type_w = np.array([opts.type_weights.get(t, 1.0) for t in snap.rel_types], dtype=np.float64)
        weights *= type_w
    if opts.weight_by_support:
        support = np.asarray(snap.rel_chunks.sum(axis=1)).ravel()
        weights *= np.maximum(support, 1.0)
    src, dst = snap.rel_source.astype(np.float64), snap.rel_target.astype(np.float64)
    if opts.direction is EdgeDirection.FORWARD:
        return src, dst, weights
    if opts.direction is EdgeDirection.BACKWARD:
        return dst, src, weights
    return np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([weights, weights])


def _mention_edges(snap: GraphSnapshot, opts: GraphOptions) -> tuple[FloatArray, FloatArray, FloatArray]:
    coo = snap.mentions.tocoo()
    base = coo.data if opts.weight_by_mentions else np.ones_like(coo.data)
    weights = opts.mention_weight * base
    if snap.titles.nnz and opts.title_weight:
        is_title = np.asarray(snap.titles[coo.row, coo.col]).ravel()
        weights = weights + opts.title_weight * is_title
    chunk_nodes = (coo.row + snap.n_entities).astype(np.float64)
    ents = coo.col.astype(np.float64)
    return (
        np.concatenate([chunk_nodes, ents]),
        np.concatenate([ents, chunk_nodes]),
        np.concatenate([weights, weights]),
    )


def build_walk_graph(snap: GraphSnapshot, opts: GraphOptions) -> WalkGraph:
    parts = [_relation_edges(snap, opts), _mention_edges(snap, opts)]
    n_syn = 0
    if opts.synonym_threshold is not None and opts.synonym_weight > 0:
        pairs = np.asarray(synonym_pairs(snap.entity_names, opts.synonym_threshold), dtype=np.float64).reshape(-1, 2)
        n_syn = len(pairs)
        w = np.full(2 * n_syn, opts.synonym_weight)
        parts.append((np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1], pairs[:, 0]]), w))
    rows = np.concatenate([p[0] for p in parts]).astype(np.int64)
    cols = np.concatenate([p[1] for p in parts]).astype(np.int64)
    vals = np.concatenate([p[2] for p in parts])
    keep = vals > 0
    n = snap.n_nodes
    adjacency = sparse.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(n, n), dtype=np.float64)
    out = np.asarray(adjacency.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros_like(out), where=out > 0)
    transition = sparse.diags(inv) @ adjacency
    incidence = sparse.csr_matrix(
        (
            np.ones(2 * snap.n_relations),
            (np.tile(np.arange(snap.n_relations), 2), np.concatenate([snap.rel_source, snap.rel_target])),
        ),
        shape=(snap.n_relations, snap.n_entities),
    )
    return WalkGraph(
        snapshot=snap,
        transition_t=sparse.csr_matrix(transition.T),
        dangling=out <= 0,
        rel_incidence=incidence,
        n_synonym_edges=n_syn,
    )


def personalized_pagerank(
    transition_t: sparse.csr_matrix,
    restart: FloatArray,
    damping: float,
    dangling: npt.NDArray[np.bool_] | None = None,
    tolerance: float = 1e-6,
    max_iterations: int = 100,
) -> tuple[FloatArray, int]:
    """Power iteration r <- (1-d) p + d (M r + dangling mass * p); returns the scores (sum 1) and iterations run."""
    total = restart.sum()
    if total <= 0:
        raise ValueError("the restart vector needs positive mass")
    p = restart / total
    r = p.copy()
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - the count is returned
        leaked = r[dangling].sum() if dangling is not None and dangling.any() else 0.0
        nxt = damping * (transition_t @ r) + (damping * leaked + (1.0 - damping)) * p
        delta = np.abs(nxt - r).sum()
        r = nxt
        if delta < tolerance:
            break
    return r, iterations


@dataclass
class PPRRun:
    entity_scores: FloatArray
    chunk_scores: FloatArray
    iterations: int


def _normalised(v: FloatArray) -> FloatArray:
    total = v.sum()
    return v / total if total > 0 else v


class PPREngine:
    """Seeds in, chunk and entity scores out, over one walk graph."""

    def __init__(self, walk: WalkGraph, options: ScoringOptions) -> None:
        self.walk = walk
        self.options = options
        self._chunk_counts = walk.snapshot.chunk_counts()
        self._entity_relations = sparse.csr_matrix(walk.rel_incidence.T)  # E x R

    def relation_cues(self, entity_seeds: Mapping[int, float], relevance: Mapping[str, float]) -> FloatArray:
        """Seed mass moved to the neighbours (and kept on the seeds) in proportion to how relevant each
        relationship's type is to the question: "the director of X" sends X's mass to X's DIRECTED neighbour."""
        snap = self.walk.snapshot
        cues = np.zeros(snap.n_nodes)
        for idx, weight in entity_seeds.items():
            rels = self._entity_relations.indices[
                self._entity_relations.indptr[idx] : self._entity_relations.indptr[idx + 1]
            ]
            for r in rels:
                rel_w = relevance.get(snap.rel_types[r], 0.0)
                if rel_w <= 0:
                    continue
                other = snap.rel_target[r] if snap.rel_source[r] == idx else snap.rel_source[r]
                cues[other] += weight * rel_w
                cues[idx] = max(cues[idx], weight * rel_w)
        return _normalised(cues)

    def restart_vector(
        self,
        entity_seeds: Mapping[int, float],
        passage_seeds: Mapping[int, float],
        relevance: Mapping[str, float] | None = None,
    ) -> FloatArray:
        snap = self.walk.snapshot
        entity_part = np.zeros(snap.n_nodes)
        for idx, score in entity_seeds.items():
            weight = score
            if self.options.node_specificity:
                weight /= max(self._chunk_counts[idx], 1.0)
            entity_part[idx] += weight
        entity_part = _normalised(entity_part)
        cue_share = self.options.relation_cue_weight
        if relevance and cue_share > 0:
            cues = self.relation_cues(entity_seeds, relevance)
            if cues.any():
                entity_part = (1.0 - cue_share) * entity_part + cue_share * cues
        passage_part = np.zeros(snap.n_nodes)
        for idx, score in passage_seeds.items():
            passage_part[snap.n_entities + idx] += max(score, 0.0)
        entity_part, passage_part = _normalised(entity_part), _normalised(passage_part)
        if not passage_part.any():
            return entity_part
        if not entity_part.any():
            return passage_part
        share = self.options.passage_seed_weight
        return (1.0 - share) * entity_part + share * passage_part

    def run(
        self,
        entity_seeds: Mapping[int, float],
        passage_seeds: Mapping[int, float] | None = None,
        relevance: Mapping[str, float] | None = None,
    ) -> PPRRun:
        restart = self.restart_vector(entity_seeds, passage_seeds or {}, relevance)
        scores, iterations = personalized_pagerank(
            self.walk.transition_t,
            restart,
            self.options.damping,
            self.walk.dangling,
            self.options.tolerance,
            self.options.max_iterations,
        )
        n_e = self.walk.snapshot.n_entities
        entity_scores = scores[:n_e]
        return PPRRun(entity_scores, self.chunk_scores(scores), iterations)

    def chunk_scores(self, scores: FloatArray) -> FloatArray:
        n_e = self.walk.snapshot.n_entities
        passage = scores[n_e:]
        mode = self.options.chunk_scoring
        if mode is ChunkScoring.PASSAGE:
            return passage
        relation_scores = self.walk.rel_incidence @ scores[:n_e]
        via_relations = np.asarray(self.walk.snapshot.rel_chunks.T @ relation_scores).ravel()
        if mode is ChunkScoring.RELATIONS:
            return via_relations
        return _normalised(passage) + _normalised(via_relations)
