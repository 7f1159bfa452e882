"""PPR against hand-computed stationary distributions, the snapshot's walk matrix, seeding and chunk scoring."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from graphwire.retrieval.ppr import (
    ChunkScoring,
    EdgeDirection,
    EntityRow,
    GraphOptions,
    GraphSnapshot,
    MentionRow,
    PPREngine,
    RelationRow,
    ScoringOptions,
    build_snapshot,
    build_walk_graph,
    personalized_pagerank,
    push_personalized_pagerank,
)
from graphwire.retrieval.ppr.synonyms import synonym_pairs


def _transition_t(edges: list[tuple[int, int]], n: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    adj = np.zeros((n, n))
    for a, b in edges:
        adj[a, b] = 1.0
    out = adj.sum(axis=1)
    trans = np.divide(adj, out[:, None], out=np.zeros_like(adj), where=out[:, None] > 0)
    return sparse.csr_matrix(trans.T), out == 0


def test_two_nodes_undirected_matches_hand_computation() -> None:
    # r_A = 1/2 + 1/2 r_B, r_B = 1/2 r_A  =>  r_A = 2/3, r_B = 1/3
    mt, dangling = _transition_t([(0, 1), (1, 0)], 2)
    scores, _ = personalized_pagerank(mt, np.array([1.0, 0.0]), 0.5, dangling, tolerance=1e-12)
    assert scores == pytest.approx([2 / 3, 1 / 3], abs=1e-9)


def test_star_seeded_at_centre() -> None:
    # r_C = 1/2 + 1/2 (r_1 + r_2), r_i = 1/2 * r_C / 2  =>  r_C = 2/3, r_i = 1/6
    mt, dangling = _transition_t([(0, 1), (1, 0), (0, 2), (2, 0)], 3)
    scores, _ = personalized_pagerank(mt, np.array([5.0, 0.0, 0.0]), 0.5, dangling, tolerance=1e-12)
    assert scores == pytest.approx([2 / 3, 1 / 6, 1 / 6], abs=1e-9)


def test_dangling_mass_returns_to_the_seeds() -> None:
    # A -> B only; B is dangling, its mass restarts at A: r_A = 1/2 + 1/2 r_B, r_B = 1/2 r_A
    mt, dangling = _transition_t([(0, 1)], 2)
    scores, _ = personalized_pagerank(mt, np.array([1.0, 0.0]), 0.5, dangling, tolerance=1e-12)
    assert scores == pytest.approx([2 / 3, 1 / 3], abs=1e-9)
    assert scores.sum() == pytest.approx(1.0)


def test_damping_085_matches_the_linear_solve() -> None:
    edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 2), (1, 3)]
    mt, dangling = _transition_t(edges, 4)
    p = np.array([0.0, 1.0, 0.0, 0.0])
    scores, iterations = personalized_pagerank(mt, p, 0.85, dangling, tolerance=1e-12, max_iterations=1000)
    exact = 0.15 * np.linalg.solve(np.eye(4) - 0.85 * mt.toarray(), p)
    assert scores == pytest.approx(exact, abs=1e-9)
    assert iterations > 1


def test_restart_without_mass_is_rejected() -> None:
    mt, dangling = _transition_t([(0, 1)], 2)
    with pytest.raises(ValueError):
        personalized_pagerank(mt, np.zeros(2), 0.5, dangling)


def _small_snapshot() -> GraphSnapshot:
    entities = [
        EntityRow("P:ann", "Ann", "Person"),
        EntityRow("F:dune", "Dune", "Film"),
        EntityRow("L:oslo", "Oslo", "Location"),
    ]
    mentions = [
        MentionRow("c1", "F:dune", 1, True),
        MentionRow("c1", "P:ann"),
        MentionRow("c2", "P:ann", 1, True),
        MentionRow("c2", "L:oslo"),
        MentionRow("c3", "L:oslo", 1, True),
    ]
    relations = [
        RelationRow("F:dune", "DIRECTED_BY", "P:ann", ("c1",)),
        RelationRow("P:ann", "BORN_IN", "L:oslo", ("c2",)),
    ]
    return build_snapshot(entities, mentions, relations, fingerprint="t")


def test_walk_matrix_is_column_stochastic_and_respects_direction() -> None:
    snap = _small_snapshot()
    both = build_walk_graph(snap, GraphOptions(title_weight=0.0))
    col_sums = np.asarray(both.transition_t.sum(axis=0)).ravel()
    assert col_sums == pytest.approx(np.ones(snap.n_nodes))
    forward = build_walk_graph(snap, GraphOptions(direction=EdgeDirection.FORWARD))
    dune, ann, oslo = 1, 0, 2
    assert forward.transition_t[ann, dune] > 0 and forward.transition_t[dune, ann] == 0
    assert forward.transition_t[oslo, ann] > 0 and forward.transition_t[ann, oslo] == 0


def test_title_weight_strengthens_the_passage_edge() -> None:
    snap = _small_snapshot()
    plain = build_walk_graph(snap, GraphOptions(title_weight=0.0))
    titled = build_walk_graph(snap, GraphOptions(title_weight=3.0))
    dune, c1 = 1, 3  # chunk c1 is node E + 0
    assert titled.transition_t[c1, dune] > plain.transition_t[c1, dune]


def test_node_specificity_divides_by_chunk_count() -> None:
    snap = _small_snapshot()
    engine = PPREngine(build_walk_graph(snap, GraphOptions()), ScoringOptions(node_specificity=True))
    restart = engine.restart_vector({0: 1.0, 1: 1.0}, {})  # Ann in 2 chunks, Dune in 1
    assert restart[1] == pytest.approx(2 * restart[0])
    flat = PPREngine(engine.walk, ScoringOptions(node_specificity=False)).restart_vector({0: 1.0, 1: 1.0}, {})
    assert flat[0] == pytest.approx(flat[1])


def test_passage_seeds_share_the_restart_mass() -> None:
    snap = _small_snapshot()
    engine = PPREngine(build_walk_graph(snap, GraphOptions()), ScoringOptions(passage_seed_weight=0.25))
    restart = engine.restart_vector({1: 1.0}, {2: 0.7})
    assert restart[1] == pytest.approx(0.75) and restart[3 + 2] == pytest.approx(0.25)


def test_relation_scoring_propagates_entity_to_relationship_to_chunk() -> None:
    snap = _small_snapshot()
    engine = PPREngine(build_walk_graph(snap, GraphOptions()), ScoringOptions(chunk_scoring=ChunkScoring.RELATIONS))
    scores = np.array([0.5, 0.3, 0.2, 0.0, 0.0, 0.0])  # Ann, Dune, Oslo, c1, c2, c3
    chunk = engine.chunk_scores(scores)
    # c1 supports Dune-Ann (0.3 + 0.5), c2 supports Ann-Oslo (0.5 + 0.2), c3 supports nothing
    assert chunk == pytest.approx([0.8, 0.7, 0.0])


def test_a_two_hop_question_reaches_the_bridge_passage() -> None:
    snap = _small_snapshot()
    engine = PPREngine(build_walk_graph(snap, GraphOptions()), ScoringOptions())
    run = engine.run({1: 1.0})  # seed: the film
    order = np.argsort(-run.chunk_scores)
    assert list(order[:2]) == [0, 1]  # the film's passage, then its director's (which names the birthplace)


def test_synonym_pairs_link_near_identical_names_only() -> None:
    names = ["Marguerite Okonjo", "Marguerite Okonjo-Vance", "Margaret Oakes", "Okonjo Films"]
    assert synonym_pairs(names, 85.0) == [(0, 1)]


def test_forward_push_approaches_power_iteration() -> None:
    rng = np.random.default_rng(3)
    n = 60
    edges = {(int(a), int(b)) for a, b in rng.integers(0, n, size=(240, 2)) if a != b}
    mt, dangling = _transition_t(sorted(edges), n)
    p = np.zeros(n)
    p[[2, 17]] = 1.0
    exact, _ = personalized_pagerank(mt, p, 0.5, dangling, tolerance=1e-12)
    approx, rounds = push_personalized_pagerank(sparse.csr_matrix(mt.T), p, 0.5, dangling, epsilon=1e-9)
    assert np.abs(exact - approx).sum() < 1e-6
    assert np.all(approx <= exact + 1e-12)  # push estimates are lower bounds
    assert rounds > 1
    coarse, _ = push_personalized_pagerank(sparse.csr_matrix(mt.T), p, 0.5, dangling, epsilon=1e-3)
    assert list(np.argsort(-coarse)[:3]) == list(np.argsort(-exact)[:3])


def test_engine_switches_to_push_above_the_edge_threshold() -> None:
    snap = _small_snapshot()
    walk = build_walk_graph(snap, GraphOptions())
    power = PPREngine(walk, ScoringOptions(push_above_edges=10**6))
    push = PPREngine(walk, ScoringOptions(push_above_edges=0, push_epsilon=1e-10))
    assert not power.uses_push and push.uses_push
    a, b = power.run({1: 1.0}), push.run({1: 1.0})
    assert a.chunk_scores == pytest.approx(b.chunk_scores, abs=1e-6)
