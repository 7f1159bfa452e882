"""Question analysis: publications (aliases, case, common phrases), dates with relations, cues."""

from __future__ import annotations

from datetime import date

import pytest

from graphwire.retrieval.question import (
    DateRelation,
    Granularity,
    OutletGazetteer,
    find_dates,
    outlet_head,
    question_signals,
)
from graphwire.schema.model import load_schema

SOURCES = [
    "TechCrunch",
    "The Verge",
    "The Age",
    "Fortune",
    "Cnbc | World Business News Leader",
    "FOX News - Health",
    "FOX News - Lifestyle",
    "The Independent - Life and Style",
    "The Independent - Sports",
    "Music Business Worldwide",
]


@pytest.fixture(scope="module")
def gazetteer() -> OutletGazetteer:
    return OutletGazetteer(SOURCES, schema=load_schema())


def test_outlet_head_strips_sections() -> None:
    assert outlet_head("FOX News - Health") == "FOX News"
    assert outlet_head("Cnbc | World Business News Leader") == "Cnbc"
    assert outlet_head("Live Science: The Most Interesting Articles") == "Live Science"
    assert outlet_head("TechCrunch") == "TechCrunch"


def test_full_names_and_short_forms(gazetteer: OutletGazetteer) -> None:
    found = gazetteer.find("Did CNBC and 'The Independent - Life and Style' agree with Fox News and TechCrunch?")
    assert [m.mention for m in found] == ["CNBC", "The Independent - Life and Style", "Fox News", "TechCrunch"]
    assert found[0].sources == ["Cnbc | World Business News Leader"]
    assert found[1].sources == ["The Independent - Life and Style"]  # the longest form wins over "The Independent"
    assert found[2].sources == ["FOX News - Health", "FOX News - Lifestyle"]
    assert gazetteer.find("a story in The Independent")[0].sources == [
        "The Independent - Life and Style",
        "The Independent - Sports",
    ]


def test_long_names_match_ignoring_case_short_ones_do_not(gazetteer: OutletGazetteer) -> None:
    assert gazetteer.find("per music business worldwide")[0].sources == ["Music Business Worldwide"]
    assert gazetteer.find("the company was on the verge of collapse in the age of AI") == []
    assert gazetteer.find("a small fortune") == []


def test_common_phrases_are_not_outlets(gazetteer: OutletGazetteer) -> None:
    assert gazetteer.find("The Age of Discovery and Fortune 500 companies") == []
    assert [m.name for m in gazetteer.find("The Age reported it; Fortune agreed")] == ["The Age", "Fortune"]


def test_outlets_outside_the_corpus_are_reported(gazetteer: OutletGazetteer) -> None:
    analysis = question_signals("What did The Times of India and TechCrunch say?", gazetteer)
    assert analysis.unknown_publications == ["The Times of India"]
    assert analysis.sources == ["TechCrunch"]


def test_dates_with_relations() -> None:
    dates = find_dates(
        "Between the report published on October 9, 2023 and one before Nov. 5, 2023, after 2023-12-01, "
        "or in December 2023, and the 14th of September, what changed since May?"
    )
    assert [(d.text, d.granularity, d.relation) for d in dates] == [
        ("October 9, 2023", Granularity.DAY, DateRelation.ON),
        ("Nov. 5, 2023", Granularity.DAY, DateRelation.BEFORE),
        ("2023-12-01", Granularity.DAY, DateRelation.AFTER),
        ("December 2023", Granularity.MONTH, DateRelation.ON),
        ("14th of September", Granularity.DAY, DateRelation.ON),
        ("May", Granularity.MONTH, DateRelation.AFTER),
    ]
    assert dates[0].as_date() == date(2023, 10, 9)
    assert dates[4].year is None and dates[4].matches(date(2021, 9, 14))


def test_date_admits_by_relation() -> None:
    on, before, after = find_dates("on October 9, 2023, before November 2023 and after October 20")
    assert on.admits(date(2023, 10, 9)) and not on.admits(date(2023, 10, 10))
    assert before.admits(date(2023, 10, 31)) and not before.admits(date(2023, 11, 1))
    assert after.admits(date(2023, 10, 21)) and not after.admits(date(2023, 10, 20))


def test_verb_may_and_impossible_days_are_not_dates() -> None:
    assert find_dates("Prices may rise, and may fall") == []
    assert find_dates("on February 30, 2023") == []


def test_analysis_links_dates_to_outlets_and_finds_cues(gazetteer: OutletGazetteer) -> None:
    analysis = question_signals(
        "Between the TechCrunch report published on October 9, 2023, and the subsequent report by The Verge "
        "on November 2, 2023, was the portrayal of Google consistent?",
        gazetteer,
    )
    assert [m.name for m in analysis.publications] == ["TechCrunch", "The Verge"]
    assert [d.publication for d in analysis.dates] == [0, 1]
    assert analysis.exact_dates == [date(2023, 10, 9), date(2023, 11, 2)]
    assert analysis.yes_no
    assert {"between", "subsequent", "consistent"} <= set(analysis.temporal_cues)
    assert analysis.date_admits(date(2023, 11, 2), publication_index=1) is True
    assert analysis.date_admits(date(2023, 10, 9), publication_index=1) is False
    assert analysis.date_admits(None) is None
    assert "TechCrunch report published on October 9, 2023" in analysis.publications[0].clause


def test_wh_question_with_outlets_is_not_yes_no(gazetteer: OutletGazetteer) -> None:
    analysis = question_signals(
        "Which company, reported by TechCrunch while The Verge covered the same source, is it?", gazetteer
    )
    assert not analysis.yes_no
    assert "while" in analysis.comparison_cues
    assert analysis.same_source
    assert [m.name for m in analysis.outlets] == ["TechCrunch", "The Verge"]


def test_claim_segments_and_thin_clauses(gazetteer: OutletGazetteer) -> None:
    question = (
        "Which company, despite facing financial stability issues according to a TechCrunch article, is expected to "
        'promote an "app store for AI" for AI tools and is also planning to launch GPT-4 with vision, as reported by '
        "TechCrunch?"
    )
    analysis = question_signals(question, gazetteer)
    claims = [segment.text for segment in analysis.segments if segment.is_claim]
    assert len(claims) == 3
    assert claims[1].startswith("is expected to promote") and "GPT-4 with vision" in claims[2]
    # "as reported by TechCrunch?" holds no claim: the mention's clause is the claim segment around it
    assert analysis.publications[1].clause.startswith("is also planning to launch GPT-4")
    assert "financial stability" in analysis.publications[0].clause
