"""Personalized PageRank over a snapshot: the weighted walk matrix, power iteration and chunk scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse

from graphwire.retrieval.ppr.config import ChunkScoring, EdgeDirection, GraphOptions, PPRMethod, ScoringOptions
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.retrieval.ppr.synonyms import synonym_pairs

FloatArray = npt.NDArray[np.float64]


@dataclass
class WalkGraph:
    """The snapshot as a random walk: transposed row-stochastic transition matrix plus what chunk scoring needs."""

    snapshot: GraphSnapshot
    transition: sparse.csr_matrix  # N x N, row-stochastic: row i holds the out-probabilities of node i
    dangling: npt.NDArray[np.bool_]  # nodes without out-edges; their mass restarts at the seeds
    rel_incidence: sparse.csr_matrix  # R x E, 1 at both endpoints of each relationship
    chunk_from_entity: sparse.csc_matrix  # C x E: rel_chunks^T @ rel_incidence, entity -> relationship -> chunk
    entity_relations: sparse.csr_matrix  # E x R, the relationships each entity takes part in
    rel_type_ids: npt.NDArray[np.int64]  # R, index into type_names
    type_names: list[str]
    n_synonym_edges: int = 0

    @property
    def transition_t(self) -> sparse.csc_matrix:
        """The transpose (a free CSC view): `transition_t @ r` is one step of the walk."""
        return self.transition.T

    @property
    def out_degree(self) -> FloatArray:
        return np.diff(self.transition.indptr).astype(np.float64)


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


def _cooccurrence_edges(snap: GraphSnapshot, opts: GraphOptions) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Entity-entity edges between names that share a sentence (already symmetric), weighted by how many."""
    if snap.cooccurrence is None or opts.cooccurrence_weight <= 0:
        empty = np.zeros(0)
        return empty, empty, empty
    coo = snap.cooccurrence.tocoo()
    return coo.row.astype(np.float64), coo.col.astype(np.float64), opts.cooccurrence_weight * coo.data


def build_walk_graph(snap: GraphSnapshot, opts: GraphOptions) -> WalkGraph:
    parts = [_relation_edges(snap, opts), _mention_edges(snap, opts), _cooccurrence_edges(snap, opts)]
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
    transition = sparse.csr_matrix(sparse.diags(inv) @ adjacency)
    incidence = sparse.csr_matrix(
        (
            np.ones(2 * snap.n_relations),
            (np.tile(np.arange(snap.n_relations), 2), np.concatenate([snap.rel_source, snap.rel_target])),
        ),
        shape=(snap.n_relations, snap.n_entities),
    )
    type_names = sorted(set(snap.rel_types))
    type_index = {t: i for i, t in enumerate(type_names)}
    return WalkGraph(
        snapshot=snap,
        transition=transition,
        dangling=out <= 0,
        rel_incidence=incidence,
        chunk_from_entity=sparse.csc_matrix(snap.rel_chunks.T @ incidence),
        entity_relations=sparse.csr_matrix(incidence.T),
        rel_type_ids=np.asarray([type_index[t] for t in snap.rel_types], dtype=np.int64),
        type_names=type_names,
        n_synonym_edges=n_syn,
    )


def personalized_pagerank(
    transition_t: sparse.spmatrix,
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


def push_personalized_pagerank(
    transition: sparse.csr_matrix,
    restart: FloatArray,
    damping: float,
    dangling: npt.NDArray[np.bool_] | None = None,
    epsilon: float = 1e-6,
    max_rounds: int = 200,
    out_degree: FloatArray | None = None,
) -> tuple[FloatArray, int]:
    """Approximate PPR by synchronous forward push (Andersen, Chung, Lang 2006), vectorised.

    A node pushes while its residual is at least `epsilon` times its out-degree, so hubs push rarely and the work is
    bounded by about 1/(epsilon (1 - damping)) edge visits whatever the graph's size. Estimates are a lower bound of
    the exact scores; the residual mass left below the thresholds is not redistributed.
    """
    total = restart.sum()
    if total <= 0:
        raise ValueError("the restart vector needs positive mass")
    p = restart / total
    n = transition.shape[0]
    indptr, indices, data = transition.indptr, transition.indices, transition.data
    degree = out_degree if out_degree is not None else np.diff(indptr).astype(np.float64)
    threshold = epsilon * np.maximum(degree, 1.0)
    estimate = np.zeros(n)
    residual = p.copy()
    seeds = np.flatnonzero(p)
    # Only nodes that just received mass can cross their threshold; while few edges are pushed, track those
    # nodes instead of scanning the whole vector (the sparse path), else fall back to dense whole-vector passes.
    candidates: npt.NDArray[np.int64] | None = seeds
    rounds = 0
    for rounds in range(1, max_rounds + 1):  # noqa: B007 - the count is returned
        if candidates is None:
            active = np.flatnonzero(residual >= threshold)
        else:  # candidates may repeat (targets of several pushes): dedupe only the few that cross the threshold
            active = np.unique(candidates[residual[candidates] >= threshold[candidates]])
        if len(active) == 0:
            break
        mass = residual[active]
        residual[active] = 0.0
        estimate[active] += (1.0 - damping) * mass
        starts = indptr[active]
        lengths = indptr[active + 1] - starts
        edges = int(lengths.sum())
        targets = np.zeros(0, dtype=np.int64)
        if edges:
            offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(edges)
            weights = np.repeat(damping * mass, lengths) * data[offsets]
            targets = indices[offsets]
            if edges * 8 < n:
                np.add.at(residual, targets, weights)
            else:
                residual += np.bincount(targets, weights=weights, minlength=n)
        leaked = mass[dangling[active]].sum() if dangling is not None else 0.0
        if leaked:
            residual[seeds] += damping * leaked * p[seeds]
            targets = np.concatenate([targets, seeds])
        candidates = targets if edges * 8 < n else None
    return estimate, rounds


@dataclass
class PPRRun:
    entity_scores: FloatArray
    chunk_scores: FloatArray
    iterations: int


def _normalised(v: FloatArray) -> FloatArray:
    total = v.sum()
    return v / total if total > 0 else v


def _normalised_map(weights: Mapping[int, float]) -> dict[int, float]:
    total = sum(w for w in weights.values() if w > 0)
    return {k: w / total for k, w in weights.items() if w > 0} if total > 0 else {}


def _blend(first: Mapping[int, float], second: Mapping[int, float], share: float) -> dict[int, float]:
    """(1 - share) * first + share * second, for two distributions given as sparse maps."""
    out = {k: (1.0 - share) * w for k, w in first.items()}
    for k, w in second.items():
        out[k] = out.get(k, 0.0) + share * w
    return out


class PPREngine:
    """Seeds in, chunk and entity scores out, over one walk graph."""

    def __init__(self, walk: WalkGraph, options: ScoringOptions) -> None:
        self.walk = walk
        self.options = options
        self._chunk_counts = walk.snapshot.chunk_counts()
        self._out_degree = walk.out_degree

    @property
    def uses_push(self) -> bool:
        method = self.options.method
        if method is PPRMethod.AUTO:
            return self.walk.transition.nnz > self.options.push_above_edges
        return method is PPRMethod.PUSH

    def relation_cues(self, entity_seeds: Mapping[int, float], relevance: Mapping[str, float]) -> dict[int, float]:
        """Seed mass moved to the neighbours (and kept on the seeds) in proportion to how relevant each
        relationship's type is to the question: "the director of X" sends X's mass to X's DIRECTED neighbour."""
        walk, snap = self.walk, self.walk.snapshot
        type_relevance = np.array([relevance.get(t, 0.0) for t in walk.type_names])
        cues: dict[int, float] = {}
        for idx, weight in entity_seeds.items():
            rels = walk.entity_relations.indices[
                walk.entity_relations.indptr[idx] : walk.entity_relations.indptr[idx + 1]
            ]
            rel_w = type_relevance[walk.rel_type_ids[rels]]
            keep = rel_w > 0
            if not keep.any():
                continue
            rels, rel_w = rels[keep], weight * rel_w[keep]
            others = np.where(snap.rel_source[rels] == idx, snap.rel_target[rels], snap.rel_source[rels])
            uniq, inverse = np.unique(others, return_inverse=True)
            for node, mass in zip(uniq.tolist(), np.bincount(inverse, weights=rel_w).tolist(), strict=True):
                cues[node] = cues.get(node, 0.0) + mass
            cues[idx] = max(cues.get(idx, 0.0), float(rel_w.max()))
        return _normalised_map(cues)

    def restart_vector(
        self,
        entity_seeds: Mapping[int, float],
        passage_seeds: Mapping[int, float],
        relevance: Mapping[str, float] | None = None,
    ) -> FloatArray:
        """Entity seeds (score / chunk count), blended with relation cues, then with passage seeds; sums to 1."""
        snap = self.walk.snapshot
        entity_part: dict[int, float] = {}
        for idx, score in entity_seeds.items():
            specificity = max(self._chunk_counts[idx], 1.0) if self.options.node_specificity else 1.0
            entity_part[idx] = entity_part.get(idx, 0.0) + score / specificity
        entity_part = _normalised_map(entity_part)
        cue_share = self.options.relation_cue_weight
        if relevance and cue_share > 0 and entity_part:
            cues = self.relation_cues(entity_seeds, relevance)
            if cues:
                entity_part = _blend(entity_part, cues, cue_share)
        passage_part = _normalised_map({snap.n_entities + i: max(s, 0.0) for i, s in passage_seeds.items()})
        if entity_part and passage_part:
            combined = _blend(entity_part, passage_part, self.options.passage_seed_weight)
        else:
            combined = entity_part or passage_part
        restart = np.zeros(snap.n_nodes)
        if combined:
            restart[np.fromiter(combined.keys(), dtype=np.int64)] = np.fromiter(combined.values(), dtype=np.float64)
        return restart

    def run(
        self,
        entity_seeds: Mapping[int, float],
        passage_seeds: Mapping[int, float] | None = None,
        relevance: Mapping[str, float] | None = None,
    ) -> PPRRun:
        restart = self.restart_vector(entity_seeds, passage_seeds or {}, relevance)
        opts = self.options
        if self.uses_push:
            scores, iterations = push_personalized_pagerank(
                self.walk.transition,
                restart,
                opts.damping,
                self.walk.dangling,
                opts.push_epsilon,
                out_degree=self._out_degree,
            )
        else:
            scores, iterations = personalized_pagerank(
                self.walk.transition_t, restart, opts.damping, self.walk.dangling, opts.tolerance, opts.max_iterations
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
        entity_scores = scores[:n_e]
        touched = np.flatnonzero(entity_scores)
        if len(touched) < n_e // 10:  # push leaves most entities at zero: multiply only their columns
            via_relations = self.walk.chunk_from_entity[:, touched] @ entity_scores[touched]
        else:
            via_relations = self.walk.chunk_from_entity @ entity_scores
        via_relations = np.asarray(via_relations).ravel()
        if mode is ChunkScoring.RELATIONS:
            return via_relations
        return _normalised(passage) + _normalised(via_relations)
