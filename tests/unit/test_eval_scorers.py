"""Scorer tests on hand-made cases, including the "no" in "unknown" trap and answers seen in the CS564 study."""

from __future__ import annotations

import pytest

from graphwire.eval.scorers import (
    Outcome,
    article_precision_recall,
    cs564_lenient,
    first_ranks,
    gold_in_quote,
    is_abstention,
    official_ranking_scores,
    official_word_overlap,
    perfect_at,
    score_retrieval,
    strict_outcome,
)

GOLD = ["Alpha beta gamma.", "Delta\nepsilon zeta."]


def test_whitespace_is_removed_on_both_sides_before_the_substring_test() -> None:
    chunks = ["noise", "[Source: X] Alphabeta  gamma. more", "Delta epsilonzeta. tail"]
    assert first_ranks(chunks, GOLD) == [2, 3]


def test_official_ranking_scores_by_hand() -> None:
    # gold 1 at rank 2, gold 2 at rank 3: AP = (1/2 + 1/3) / 2, RR = 1/2.
    chunks = ["noise", "Alpha beta gamma.", "Delta epsilon zeta."]
    hits_10, hits_4, ap, rr = official_ranking_scores(chunks, GOLD)
    assert (hits_10, hits_4) == (1.0, 1.0)
    assert ap == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert rr == pytest.approx(1 / 2)


def test_a_chunk_holding_both_facts_counts_both_at_its_rank() -> None:
    chunks = ["x", "y", "z", "w", "Alpha beta gamma. Delta epsilon zeta."]
    hits_10, hits_4, ap, rr = official_ranking_scores(chunks, GOLD)
    assert (hits_10, hits_4) == (1.0, 0.0)
    assert ap == pytest.approx((2 / 5) / 2)
    assert rr == pytest.approx(1 / 5)


def test_repeated_fact_in_later_chunks_adds_nothing_and_rank_11_is_ignored() -> None:
    chunks = ["Alpha beta gamma."] * 3 + ["n"] * 7 + ["Delta epsilon zeta."]
    hits_10, hits_4, ap, rr = official_ranking_scores(chunks, GOLD)
    assert ap == pytest.approx(1 / 2)  # only rank 1 adds; the second fact at rank 11 is outside the window
    assert rr == 1.0
    assert perfect_at(first_ranks(chunks, GOLD), 10) == 0.0


def test_map_denominator_is_capped_at_ten_gold_facts() -> None:
    gold = [f"fact number {i}." for i in range(12)]
    chunks = [" ".join(gold)]
    _, _, ap, _ = official_ranking_scores(chunks, gold)
    assert ap == pytest.approx(12 / 10)  # upstream quirk: 12 new facts at rank 1 over min(12, 10)


def test_no_hit_scores_zero() -> None:
    assert official_ranking_scores(["unrelated"], GOLD) == (0.0, 0.0, 0.0, 0.0)


def test_perfect_evidence_needs_every_fact_within_k() -> None:
    chunks = ["Alpha beta gamma.", "a", "b", "c", "Delta epsilon zeta."]
    ranks = first_ranks(chunks, GOLD)
    assert perfect_at(ranks, 4) == 0.0
    assert perfect_at(ranks, 5) == 1.0


def test_article_precision_and_recall_use_distinct_titles() -> None:
    precision, recall = article_precision_recall(["A", "A", "B", "C"], ["A", "D"], k=10)
    assert precision == pytest.approx(1 / 3)
    assert recall == pytest.approx(1 / 2)
    assert article_precision_recall([], ["A"], k=10) == (0.0, 0.0)


def test_score_retrieval_refuses_null_questions() -> None:
    with pytest.raises(ValueError):
        score_retrieval(["x"], ["t"], [], [])


def test_score_retrieval_combines_everything() -> None:
    score = score_retrieval(["Alpha beta gamma.", "Delta epsilon zeta."], ["A", "B"], GOLD, ["A", "B"])
    assert score.perfect_at_4 == 1.0
    assert score.map_at_10 == pytest.approx((1 / 1 + 1 / 2) / 2)  # upstream AP: new facts / rank, not precision
    assert score.article_recall_at_10 == 1.0
    assert score.gold_found_at == [1, 2]


# --- answers -----------------------------------------------------------------------------------------------------


def test_no_in_unknown_trap_is_reproduced_by_the_cs564_scorer_only() -> None:
    assert cs564_lenient("Unknown", "no") is True  # the study's bug: "no" is a substring of "unknown"
    assert cs564_lenient("Insufficient information.", "no") is True  # normalised to "unknown" first
    assert strict_outcome("Unknown", "no") is Outcome.MISS
    assert official_word_overlap("Unknown", "no") is False


def test_cs564_scorer_examples() -> None:
    assert cs564_lenient("No, Yes", "no") is True  # "No, Yes" collapses to its first part
    assert cs564_lenient("True", "Yes") is True
    assert cs564_lenient("Bankman-Fried", "Sam Bankman-Fried") is True
    assert cs564_lenient("Yes", "no") is False


def test_official_word_overlap_examples() -> None:
    assert official_word_overlap('The answer to the question is "Sam Bankman-Fried".', "Sam Bankman-Fried") is True
    assert official_word_overlap("Sam Altman", "Sam Bankman-Fried") is True  # any shared word counts upstream
    assert official_word_overlap("No.", "no") is False  # punctuation is not stripped upstream
    assert official_word_overlap("Insufficient information.", "Insufficient information.") is True


@pytest.mark.parametrize(
    ("prediction", "gold", "outcome"),
    [
        ("Yes", "Yes", Outcome.CORRECT),
        ("No.", "no", Outcome.CORRECT),
        ("no", "Yes", Outcome.WRONG),
        ("No, Yes", "no", Outcome.WRONG),
        ("Yes, because both articles agree.", "Yes", Outcome.CORRECT),
        ("Unknown", "Yes", Outcome.MISS),
        ("Insufficient information.", "Sam Bankman-Fried", Outcome.MISS),
        ("Insufficient information.", "Insufficient information.", Outcome.CORRECT),
        ("Google", "Insufficient information.", Outcome.HALLUCINATION),
        ("No", "Insufficient information.", Outcome.HALLUCINATION),
        ("sam bankman-fried", "Sam Bankman-Fried", Outcome.CORRECT),
        ("Sam Bankman-Fried (SBF)", "Sam Bankman-Fried", Outcome.CORRECT),
        ("Bankman-Fried", "Sam Bankman-Fried", Outcome.WRONG),
        ("Sam Altman", "Sam Bankman-Fried", Outcome.WRONG),
        ("Travis Kelce and Taylor Swift", "Taylor Swift and Travis Kelce", Outcome.CORRECT),
        ("The Verge", "Verge", Outcome.CORRECT),
        ("Consistent", "Consistent", Outcome.CORRECT),
        ("Yes", "Consistent", Outcome.WRONG),
    ],
)
def test_strict_outcomes(prediction: str, gold: str, outcome: Outcome) -> None:
    assert strict_outcome(prediction, gold) is outcome


def test_abstention_detection() -> None:
    assert is_abstention("Insufficient information.")
    assert is_abstention("  unknown ")
    assert is_abstention(None)
    assert not is_abstention("No")


def test_fact_recall_at_k_is_the_share_of_gold_facts_in_the_top_k_chunks() -> None:
    chunks = ["alpha beta", "nothing here", "gamma delta", "more", "epsilon"]
    score = score_retrieval(chunks, ["A", "B", "C", "D", "E"], ["alpha beta", "gamma delta", "zeta"], ["A", "C", "Z"])
    assert score.gold_found_at == [1, 3, None]
    assert score.recall_at_2 == 1 / 3
    assert score.recall_at_5 == 2 / 3


def test_gold_in_quote_reads_whole_normalised_words_and_leaves_yes_no_golds_out() -> None:
    quote = '"The FTX founder, Sam Bankman-Fried, was convicted." "OpenAI\'s board fired Sam Altman."'
    assert gold_in_quote(quote, "Sam Bankman-Fried") is True
    assert gold_in_quote(quote, "the OpenAI") is True  # articles and punctuation normalised
    assert gold_in_quote(quote, "Sam") is True
    assert gold_in_quote(quote, "Altmann") is False  # whole words only
    assert gold_in_quote(quote, "Yes") is None and gold_in_quote(quote, "Insufficient information.") is None
