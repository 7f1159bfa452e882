"""Ranking policies (top-k, threshold, elbow), the title/name dictionary seeder and relation cues."""

from __future__ import annotations

import numpy as np
import pytest

from graphwire.retrieval.models import MatchTier
from graphwire.retrieval.ppr import (
    Elbow,
    GraphOptions,
    PPREngine,
    ScoringOptions,
    Threshold,
    TopK,
    build_walk_graph,
    make_policy,
    rank,
)
from graphwire.retrieval.ppr.dictionary import DictionaryMatcher
from graphwire.retrieval.ppr.snapshot import EntityRow, GraphSnapshot, MentionRow, RelationRow, build_snapshot

SCORES = np.array([0.05, 0.40, 0.0, 0.38, 0.02, 0.36, 0.01])


def test_top_k_keeps_the_k_best_positive_scores_in_order() -> None:
    assert rank(SCORES, TopK(k=3), cap=10) == [(1, 0.40), (3, 0.38), (5, 0.36)]
    assert len(rank(SCORES, TopK(k=50), cap=10)) == 6  # zero scores are never returned


def test_threshold_is_relative_to_the_best_score() -> None:
    assert [i for i, _ in rank(SCORES, Threshold(relative=0.5), cap=10)] == [1, 3, 5]
    assert [i for i, _ in rank(SCORES, Threshold(relative=0.1), cap=10)] == [1, 3, 5, 0]
    assert [i for i, _ in rank(SCORES, Threshold(relative=0.0, absolute=0.39), cap=10)] == [1]


def test_elbow_cuts_at_the_largest_relative_drop() -> None:
    assert [i for i, _ in rank(SCORES, Elbow(), cap=10)] == [1, 3, 5]  # 0.36 -> 0.05 is the steepest fall
    assert len(rank(SCORES, Elbow(min_keep=4), cap=10)) >= 4
    assert len(rank(SCORES, Elbow(max_keep=2), cap=10)) == 2


def test_policies_are_capped_and_named() -> None:
    assert len(rank(SCORES, Threshold(relative=0.0), cap=2)) == 2
    assert rank(np.zeros(4), TopK(), cap=5) == []
    assert make_policy("elbow", k=7).cut(np.array([1.0, 0.9, 0.1])) == 2
    with pytest.raises(ValueError):
        make_policy("median")


def test_ties_are_broken_by_index() -> None:
    tied = np.array([0.2, 0.5, 0.5, 0.5, 0.1])
    assert [i for i, _ in rank(tied, TopK(k=2), cap=2)] == [1, 2]
    assert [i for i, _ in rank(tied, TopK(k=2), cap=5)] == [1, 2]


def _snapshot() -> GraphSnapshot:
    entities = [
        EntityRow("Film:the glass harbor", "The Glass Harbor", "Film"),
        EntityRow("Book:the glass harbor", "The Glass Harbor", "Book"),
        EntityRow("Person:ilse marrow", "Ilse Marrow", "Person", ("Ilse Marrow", "I. Marrow")),
        EntityRow("Place:varnholm", "Varnholm", "Place"),
        EntityRow("Person:renata osei", "Renata Osei", "Person"),
    ]
    mentions = [
        MentionRow("c-film", "Film:the glass harbor", 1, True),
        MentionRow("c-film", "Person:ilse marrow"),
        MentionRow("c-book", "Book:the glass harbor", 1, True),
        MentionRow("c-book", "Person:renata osei"),
        MentionRow("c-ilse", "Person:ilse marrow", 1, True),
        MentionRow("c-ilse", "Place:varnholm"),
    ]
    relations = [
        RelationRow("Person:ilse marrow", "DIRECTED", "Film:the glass harbor", ("c-film",)),
        RelationRow("Person:renata osei", "WROTE", "Book:the glass harbor", ("c-book",)),
        RelationRow("Person:ilse marrow", "BORN_IN", "Place:varnholm", ("c-ilse",)),
    ]
    return build_snapshot(entities, mentions, relations)


def test_dictionary_prefers_the_longest_match_and_handles_possessives() -> None:
    matcher = DictionaryMatcher(_snapshot())
    found = matcher.match("Was Ilse Marrow's film The Glass Harbor shot in Varnholm?")
    keys = {m.key for m in found}
    assert keys == {"Person:ilse marrow", "Film:the glass harbor", "Book:the glass harbor", "Place:varnholm"}
    assert all(m.tier is MatchTier.EXACT and m.score == 1.0 for m in found)
    assert {m.mention for m in found if m.key == "Person:ilse marrow"} == {"Ilse Marrow's"}


def test_dictionary_matches_aliases_typos_and_titles_only() -> None:
    snap = _snapshot()
    assert [m.key for m in DictionaryMatcher(snap).match("Where was I. Marrow born?")] == ["Person:ilse marrow"]
    fuzzy = DictionaryMatcher(snap).match("Where was Ilse Marow born?")
    assert [(m.key, m.tier) for m in fuzzy] == [("Person:ilse marrow", MatchTier.FUZZY)] and fuzzy[0].score < 1.0
    titles_only = DictionaryMatcher(snap, titles_only=True)
    assert [m.key for m in titles_only.match("Is Varnholm a city?")] == []  # Varnholm titles no passage here
    assert DictionaryMatcher(snap).match("What is the capital of Peru?") == []


def test_a_qualifier_the_question_repeats_picks_the_page_among_pages_of_one_name() -> None:
    entities = [
        EntityRow("Film:the glass harbor", "The Glass Harbor", "Film"),
        EntityRow("Book:the glass harbor novel", "The Glass Harbor (novel)", "Book", ("The Glass Harbor",)),
        EntityRow("Film:salt meridian 1994 film", "Salt Meridian (1994 film)", "Film", ("Salt Meridian",)),
        EntityRow("Song:salt meridian song", "Salt Meridian (song)", "Song", ("Salt Meridian",)),
    ]
    matcher = DictionaryMatcher(build_snapshot(entities, [], []))

    def keys(question: str) -> list[str]:
        return sorted(m.key for m in matcher.match(question))

    assert keys("Who wrote the novel The Glass Harbor?") == ["Book:the glass harbor novel"]
    assert keys("Who scored The Glass Harbor?") == ["Book:the glass harbor novel", "Film:the glass harbor"]
    assert keys("Which film is Salt Meridian?") == ["Film:salt meridian 1994 film"]
    assert keys("Are Salt Meridian and Orlenz both films?") == ["Film:salt meridian 1994 film"]
    assert keys("Was Salt Meridian released in 1994?") == ["Film:salt meridian 1994 film"]
    assert keys("Who sang Salt Meridian?") == ["Film:salt meridian 1994 film", "Song:salt meridian song"]


def test_relation_cues_pick_the_neighbour_the_question_asks_about() -> None:
    snap = _snapshot()
    engine = PPREngine(build_walk_graph(snap, GraphOptions()), ScoringOptions(relation_cue_weight=0.9))
    film, book, ilse = 0, 1, 2
    seeds = {film: 1.0, book: 1.0}  # "The Glass Harbor" is both a film and a novel
    cues = engine.relation_cues(seeds, {"DIRECTED": 1.0, "WROTE": 0.1})
    assert cues[ilse] > cues.get(4, 0.0)  # the director, not the novelist
    assert cues[film] > cues[book]  # the film is the sense the question means
    run = engine.run(seeds, None, {"DIRECTED": 1.0, "WROTE": 0.1})
    ranked = [snap.chunk_ids[i] for i, _ in rank(run.chunk_scores, TopK(k=2), 2)]
    assert ranked == ["c-film", "c-ilse"]
    plain = PPREngine(engine.walk, ScoringOptions(relation_cue_weight=0.0)).run(seeds)
    assert [snap.chunk_ids[i] for i, _ in rank(plain.chunk_scores, TopK(k=2), 2)] != ranked
