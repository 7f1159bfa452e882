"""The joint ranking's pure parts: reciprocal-rank fusion of the signals, diversity by document, question linking."""

from __future__ import annotations

import numpy as np

from graphwire.retrieval.flat.index import WordCase
from graphwire.retrieval.joint import JointConfig
from graphwire.retrieval.joint_fusion import diverse_order, fuse, linked_names, spread_head
from graphwire.retrieval.models import EntityMatch, MatchTier


def test_fuse_sums_weighted_reciprocal_ranks_and_ignores_chunks_a_signal_did_not_reach() -> None:
    dense = np.array([0.9, 0.5, 0.1, 0.0])
    walk = np.array([0.0, 0.0, 0.2, 0.0])  # the walk reached one chunk only
    fused = fuse({"dense": dense, "entity_walk": walk}, {"dense": 1.0, "entity_walk": 2.0}, k=60)
    assert np.allclose(fused, [1 / 61, 1 / 62, 1 / 63 + 2 / 61, 0.0])
    # the chunk no signal reached is not ranked at all
    assert diverse_order(fused, ["a", "b", "c", "d"], top_k=4, per_document=0) == [2, 0, 1]


def test_a_zero_weight_silences_a_signal() -> None:
    dense = np.array([0.9, 0.5])
    lexical = np.array([0.1, 0.8])
    assert np.argmax(fuse({"dense": dense, "lexical": lexical}, {"dense": 1.0, "lexical": 0.0}, k=60)) == 0
    assert np.argmax(fuse({"dense": dense, "lexical": lexical}, {"dense": 0.0, "lexical": 1.0}, k=60)) == 1


def test_diversity_holds_back_a_documents_second_chunk_until_the_others_had_a_place() -> None:
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    documents = ["long", "long", "long", "other", "third"]
    assert diverse_order(scores, documents, top_k=3, per_document=1) == [0, 3, 4]
    assert diverse_order(scores, documents, top_k=5, per_document=1) == [0, 3, 4, 1, 2]
    assert diverse_order(scores, documents, top_k=4, per_document=2) == [0, 1, 3, 4]
    assert diverse_order(scores, documents, top_k=3, per_document=0) == [0, 1, 2]


def test_the_first_places_spread_over_documents_and_keep_each_documents_first_chunk_in_order() -> None:
    positions = [10, 11, 12, 13, 20, 21, 30]
    documents = ["a", "a", "a", "a", "b", "b", "c"]
    # the first two places: two documents; the first four: at most two chunks of one; the rest as ranked
    assert spread_head(positions, documents, head=4) == [10, 20, 11, 21, 12, 13, 30]
    assert spread_head(positions, documents, head=2) == [10, 20, 11, 12, 13, 21, 30]
    assert spread_head(positions, documents, head=0) == positions
    # the default (docs/query.md, README): the first two places from two documents, the first four at most two of one
    assert JointConfig().spread_head == 4
    # one document only: nothing to spread
    assert spread_head([1, 2, 3], ["a", "a", "a"], head=4) == [1, 2, 3]
    # already spread: unchanged; the documents' first appearances stay in their order either way
    assert spread_head([1, 5, 2, 6], ["a", "b", "a", "b"], head=4) == [1, 5, 2, 6]
    spread = spread_head(positions, documents, head=4)
    firsts = list(dict.fromkeys(documents[positions.index(p)] for p in spread))
    assert firsts == ["a", "b", "c"]


def test_the_config_names_a_weight_for_every_signal() -> None:
    weights = JointConfig(lexical_weight=0.0, flat_weight=0.75).weights()
    signals = {"flat", "dense", "lexical", "entity_walk", "passage_walk", "title", "linked", "graph_guided_flat"}
    assert set(weights) == signals
    assert weights["lexical"] == 0.0
    assert weights["graph_guided_flat"] == weights["flat"] == 0.75  # flat+ guided by the graph weighs as flat+


def _match(mention: str, tier: MatchTier = MatchTier.EXACT) -> EntityMatch:
    return EntityMatch(mention=mention, key=f"Thing:{mention.lower()}", name=mention, label="Thing", tier=tier,
                       score=1.0)  # fmt: skip


def test_word_case_learns_from_the_corpus_which_lower_case_words_are_names() -> None:
    corpus = WordCase.of(
        [
            "The house stood by the sea. Another house, a third house, all on Oahu.",
            "Oahu is an island; visitors reach oahu by plane. Magazines and magazines.",
        ]
    )
    assert corpus.is_common("house")  # written in lower case three times, never capitalised
    assert not corpus.is_common("oahu")  # capitalised once, lower case once: a name here
    assert corpus.is_common("video house") is False  # "video" is unseen, so it is not shown to be a common word
    assert not corpus.is_common("")


def test_linking_drops_common_words_and_one_word_fuzzy_matches_but_keeps_names() -> None:
    corpus = WordCase.of(["a house, the house, one house and Kestrel Motors; Germany and Germany."])
    matches = [
        _match("house"),  # a common word of this corpus that a page happens to carry as its title
        _match("House"),  # capitalised in the question: the question names it
        _match("Kestrel Motors"),
        _match("German", MatchTier.FUZZY),  # an inflection of Germany, not a name the corpus has
        _match("Kestrel Motor", MatchTier.FUZZY),  # a longer fuzzy span stays
    ]
    assert [m.mention for m in linked_names(matches, corpus)] == ["House", "Kestrel Motors", "Kestrel Motor"]
