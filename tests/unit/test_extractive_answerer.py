"""The extractive answerer and the registry's answerer selection, on hand-built retrieval results."""

from __future__ import annotations

from datetime import date
from typing import Literal

import pytest

from graphwire.core.settings import Settings
from graphwire.retrieval.answer.extractive import ExtractiveAnswerer, asked_label, asked_relations
from graphwire.retrieval.models import (
    ABSTENTION,
    EntityMatch,
    Fact,
    FactTier,
    MatchTier,
    QuestionSummary,
    RankedChunk,
    RetrievalResult,
)
from graphwire.retrieval.question import PublicationMention
from graphwire.retrieval.registry import (
    AnswererName,
    RetrievalContext,
    UnknownModeError,
    build_answerer,
    build_retriever,
)
from graphwire.schema.model import load_schema


def _outlet(name: str) -> PublicationMention:
    return PublicationMention(mention=name, start=0, end=len(name), name=name, sources=[name])


def _entity(name: str, label: str = "Organization") -> EntityMatch:
    return EntityMatch(
        mention=name, key=f"{label}:{name.lower()}", name=name, label=label, tier=MatchTier.EXACT, score=100
    )


def _fact(tier: FactTier, s: str, rel: str, o: str, chunk: str, s_label: str = "Organization") -> Fact:
    return Fact(
        tier=tier, subject=s, subject_label=s_label, relationship=rel, object=o, object_label="Organization",
        chunk_ids=[chunk], score=1.0,
    )  # fmt: skip


def _chunk(cid: str, source: str | None = None, day: date | None = None, text: str = "") -> RankedChunk:
    return RankedChunk(chunk_id=cid, document_id=cid, title=f"title {cid}", source=source, published_at=day, text=text)


SUPPLY_CHAIN = RetrievalResult(
    mode="graph",
    entities=[_entity("Kestrel Motors")],
    facts=[
        _fact(FactTier.DIRECT, "Brightcell", "SUPPLIES", "Kestrel Motors", "c1"),
        _fact(FactTier.DIRECT, "Ilse Varga", "CEO_OF", "Kestrel Motors", "c1", s_label="Person"),
        _fact(FactTier.DIRECT, "Quarrow", "SUPPLIES", "Brightcell", "c2"),
    ],
    chunks=[_chunk("c1"), _chunk("c2")],
)


def test_question_reading() -> None:
    assert asked_relations("Which company supplies the supplier of Kestrel Motors?", load_schema()) == {"SUPPLIES": 2}
    assert asked_label("Which company supplies Kestrel?", load_schema()) == "Organization"
    assert asked_label("Who runs Kestrel Motors?", load_schema()) == "Person"
    assert asked_label("What happened?", load_schema()) is None
    # the noun after "what is the name of (the)", not "is the name of"
    assert asked_label("What is the name of the organization that built it?", load_schema()) == "Organization"
    assert asked_label("Which AI tool, reported by both outlets, ...?", load_schema()) == "Product"
    # people and clubs named by what they are in the news ("superstar", "celebrity", "club")
    assert asked_label("Which baseball superstar, who had a dozen teams interested, ...?", load_schema()) == "Person"
    assert asked_label("Which celebrity, known for her tour, ...?", load_schema()) == "Person"
    assert asked_label("Which football club, discussed by both outlets, ...?", load_schema()) == "Organization"


def test_chain_depth_follows_how_often_the_relation_is_asked() -> None:
    answerer = ExtractiveAnswerer(schema=load_schema())
    two_hops = answerer.answer("Which company supplies the supplier of Kestrel Motors?", SUPPLY_CHAIN)
    one_hop = answerer.answer("Which company supplies Kestrel Motors?", SUPPLY_CHAIN)
    assert (two_hops.text, [c.chunk_id for c in two_hops.citations]) == ("Quarrow", ["c2"])
    assert one_hop.text == "Brightcell"
    assert answerer.answer("Who is the chief executive of Kestrel Motors?", SUPPLY_CHAIN).text == "Ilse Varga"


def test_abstains_without_entities_or_without_a_fact_of_the_asked_kind() -> None:
    answerer = ExtractiveAnswerer(schema=load_schema())
    empty = RetrievalResult(mode="graph", abstain_reason="no match")
    assert answerer.answer("Who is the CEO of Pellucid Robotics?", empty).text == ABSTENTION
    award = answerer.answer("Which award did Kestrel Motors receive?", SUPPLY_CHAIN)
    assert award.text == ABSTENTION and award.abstained and award.citations == []


def test_yes_no_needs_a_key_fact_of_the_asked_relation() -> None:
    result = RetrievalResult(
        mode="graph",
        entities=[_entity("Brightcell"), _entity("Kestrel Motors")],
        facts=[_fact(FactTier.KEY, "Brightcell", "SUPPLIES", "Kestrel Motors", "c1")],
        chunks=[_chunk("c1")],
        analysis=QuestionSummary(yes_no=True),
    )
    answerer = ExtractiveAnswerer(schema=load_schema())
    assert answerer.answer("Does Brightcell supply Kestrel Motors?", result).text == "Yes"
    assert answerer.answer("Did Brightcell sue Kestrel Motors?", result).text == ABSTENTION


@pytest.mark.parametrize(("order", "expected"), [("before", "Yes"), ("after", "No")])
def test_temporal_compares_each_outlets_best_chunk(order: Literal["before", "after"], expected: str) -> None:
    result = RetrievalResult(
        mode="graph",
        entities=[_entity("Kestrel K2", "Product")],
        chunks=[
            _chunk("n1", "Northgate", date(2024, 3, 9), "Kestrel K2 recall widens"),
            _chunk("h0", "Harbor", date(2024, 2, 1), "Kestrel K2 deal"),
            _chunk("h1", "Harbor", date(2024, 3, 4), "Kestrel K2 recall begins"),
        ],
        analysis=QuestionSummary(yes_no=True, order=order, outlets=[_outlet("Harbor"), _outlet("Northgate")]),
    )
    answer = ExtractiveAnswerer(schema=load_schema()).answer(
        f"Did Harbor report the Kestrel K2 recall {order} Northgate?", result
    )
    assert answer.text == expected
    assert [c.chunk_id for c in answer.citations] == ["h1", "n1"]


def test_registry_answerer_selection_and_unknown_mode() -> None:
    offline = Settings(llm_base_url=None, llm_model=None)
    assert build_answerer(AnswererName.AUTO, offline).name == "extractive"
    with pytest.raises(UnknownModeError):
        build_answerer("llm", offline)
    with pytest.raises(UnknownModeError):
        build_retriever("no-such-mode", RetrievalContext(offline))


def test_abstains_when_the_question_cites_an_outlet_the_graph_lacks() -> None:
    cited_elsewhere = SUPPLY_CHAIN.model_copy(update={"analysis": QuestionSummary(unknown_publications=["Reuters"])})
    answer = ExtractiveAnswerer(schema=load_schema()).answer(
        "According to Reuters, which company supplies Kestrel Motors?", cited_elsewhere
    )
    assert answer.text == ABSTENTION
    assert (
        ExtractiveAnswerer(schema=load_schema()).answer("Which company supplies Kestrel Motors?", SUPPLY_CHAIN).text
        == "Brightcell"
    )


def test_order_questions_are_told_from_change_questions() -> None:
    from graphwire.retrieval.answer.extractive import asks_about_order

    assert asks_about_order("Did Harbor report the Kestrel K2 recall before Northgate?")
    assert not asks_about_order("Was there a change in the portrayal of Google after the Verge report?")
    assert not asks_about_order("Was the TechCrunch report consistent with the later Verge report?")


def _rel(
    s: str,
    rel: str,
    o: str,
    chunk: str,
    s_label: str = "Organization",
    o_label: str = "Organization",
    tier: FactTier = FactTier.DIRECT,
    evidence: str = "",
) -> Fact:
    return Fact(
        tier=tier, subject=s, subject_label=s_label, relationship=rel, object=o, object_label=o_label,
        chunk_ids=[chunk], evidence=[evidence] if evidence else [], score=1.0,
    )  # fmt: skip


# A small drone world: Harrier (a Product) is made by Osprey Works, which sued Talon Systems (run by Mira Kovac) and is
# backed by Falk Partners, founded by Ivo Sand; Nordmark owns Talon Systems; Mira Kovac testified at the
# Harrier Inquiry.
DRONES = [
    _rel("Osprey Works", "PRODUCED", "Harrier", "d1", o_label="Product"),
    _rel("Osprey Works", "SUED", "Talon Systems", "d2"),
    _rel("Osprey Works", "COMPETES_WITH", "Talon Systems", "d2"),
    _rel("Lea Brun", "FOUNDED", "Osprey Works", "d1", s_label="Person"),
    _rel("Falk Partners", "INVESTED_IN", "Osprey Works", "d3"),
    _rel("Ivo Sand", "FOUNDED", "Falk Partners", "d3", s_label="Person"),
    _rel("Mira Kovac", "CEO_OF", "Talon Systems", "d4", s_label="Person"),
    _rel("Nordmark", "OWNS", "Talon Systems", "d5"),
    _rel("Nordmark", "LOCATED_IN", "Bremen", "d5", o_label="Location"),
    _rel("Talon Systems", "LOCATED_IN", "Kiel", "d2", o_label="Location"),
    _rel("Mira Kovac", "TESTIFIED_IN", "Harrier Inquiry", "d6", s_label="Person", o_label="Event"),
]


def _world(*names: tuple[str, str], facts: list[Fact] = DRONES) -> RetrievalResult:
    chunks = [_chunk(cid) for cid in sorted({c for f in facts for c in f.chunk_ids})]
    return RetrievalResult(
        mode="graph", entities=[_entity(name, label) for name, label in names], facts=facts, chunks=chunks
    )


def test_relation_words_read_in_context() -> None:
    assert asked_label("In which city is the company based?", load_schema()) == "Location"
    assert asked_label("The founder of X founded which other investment firm?", load_schema()) == "Organization"
    assert asked_label("Which drone maker did that firm back?", load_schema()) == "Organization"
    assert asked_relations("Which investment firm did Ivo Sand found?", load_schema()) == {
        "FOUNDED": 1
    }  # a kind of firm
    assert asked_relations("Which drone maker did that firm back?", load_schema()) == {"INVESTED_IN": 1}
    assert asked_relations("Based on the report, who leads Talon Systems?", load_schema()) == {"CEO_OF": 1}


def test_answer_needs_a_chain_covering_every_asked_relation() -> None:
    answerer = ExtractiveAnswerer(schema=load_schema())
    harrier = _world(("Harrier", "Product"))
    # Lea Brun founded the maker, but only Ivo Sand is reached through both "founded" and "backed"
    question = "Who founded the investment firm that backed the maker of the Harrier drone?"
    assert answerer.answer(question, harrier).text == "Ivo Sand"
    answer = answerer.answer("Who runs the company that was sued by the maker of the Harrier?", harrier)
    assert (answer.text, [c.chunk_id for c in answer.citations]) == ("Mira Kovac", ["d4"])
    # three relations, three hops: the owner's city, not the maker's rival's
    city = answerer.answer(
        "In which city is the company that owns the company sued by the maker of Harrier based?", harrier
    )
    assert city.text == "Bremen"


def test_abstains_when_the_asked_relation_has_no_supporting_fact() -> None:
    answerer = ExtractiveAnswerer(schema=load_schema())
    talon = _world(("Talon Systems", "Organization"))
    assert answerer.answer("Who is the chief executive of Talon Systems?", talon).text == "Mira Kovac"
    nordmark = _world(("Nordmark", "Organization"))
    # Nordmark's company has a CEO, Nordmark itself has none: no CEO_OF fact starts at Nordmark
    assert answerer.answer("Who is the chief executive of Nordmark?", nordmark).text == ABSTENTION
    pair = _world(("Nordmark", "Organization"), ("Talon Systems", "Organization"))
    assert answerer.answer("How much did Nordmark pay for Talon Systems?", pair).text == ABSTENTION
    assert answerer.answer("When did Nordmark buy Talon Systems?", pair).text == ABSTENTION


def test_multi_part_questions_follow_the_first_answer() -> None:
    answerer = ExtractiveAnswerer(schema=load_schema())
    sued = answerer.answer(
        "Which company was sued by the maker of the Harrier drone, and who is its chief executive?",
        _world(("Harrier", "Product")),
    )
    assert sued.text == "Talon Systems, run by Mira Kovac"
    assert {c.chunk_id for c in sued.citations} == {"d2", "d4"}
    testified = answerer.answer(
        "Who testified at the Harrier Inquiry, and which company does that person lead?",
        _world(("Harrier Inquiry", "Event")),
    )
    assert testified.text == "Mira Kovac, chief executive of Talon Systems"
    backed = answerer.answer(
        "Who founded Falk Partners, and which company did that firm back?", _world(("Falk Partners", "Organization"))
    )
    assert backed.text == "Ivo Sand; Osprey Works"  # the second part starts from the firm the question names
    # the second part has no supporting fact: the whole answer abstains
    no_ceo = answerer.answer(
        "Which company backed Osprey Works, and who is its chief executive?", _world(("Osprey Works", "Organization"))
    )
    assert no_ceo.text == ABSTENTION


def test_ties_at_the_end_of_one_hop_are_listed_in_evidence_order_other_ties_abstain() -> None:
    sentence = "Ari Lenz was charged with bribery and tax evasion on Friday."
    facts = [
        _rel(
            "Ari Lenz", "CHARGED_WITH", "tax evasion", "e1", s_label="Person", o_label="LegalCharge", evidence=sentence
        ),
        _rel("Ari Lenz", "CHARGED_WITH", "bribery", "e1", s_label="Person", o_label="LegalCharge", evidence=sentence),
        _rel("Ari Lenz", "WORKS_FOR", "Osprey Works", "e2", s_label="Person"),
        _rel("Uma Reyes", "WORKS_FOR", "Osprey Works", "e3", s_label="Person"),
    ]
    answerer = ExtractiveAnswerer(schema=load_schema())
    charges = answerer.answer("What was Ari Lenz charged with?", _world(("Ari Lenz", "Person"), facts=facts))
    assert charges.text == "bribery and tax evasion"
    staff = answerer.answer("Who is a staffer at Osprey Works?", _world(("Osprey Works", "Organization"), facts=facts))
    assert staff.text == ABSTENTION  # two people, each through their own fact: not one answer


def test_both_outlets_must_support_the_fact() -> None:
    result = RetrievalResult(
        mode="graph",
        entities=[_entity("Nordmark"), _entity("Talon Systems"), _entity("Harbor", "Publication"),
                  _entity("Northgate", "Publication")],
        facts=[_fact(FactTier.KEY, "Nordmark", "OWNS", "Talon Systems", "h1")],
        chunks=[_chunk("h1", "Harbor"), _chunk("n1", "Northgate")],
        analysis=QuestionSummary(yes_no=True, outlets=[_outlet("Harbor"), _outlet("Northgate")]),
    )  # fmt: skip
    question = "Did Harbor and Northgate both report Nordmark's purchase of Talon Systems?"
    assert ExtractiveAnswerer(schema=load_schema()).answer(question, result).text == ABSTENTION
    both = result.model_copy(
        update={"facts": [_fact(FactTier.KEY, "Nordmark", "OWNS", "Talon Systems", "h1").model_copy(
            update={"chunk_ids": ["h1", "n1"]})]}
    )  # fmt: skip
    assert ExtractiveAnswerer(schema=load_schema()).answer(question, both).text == "Yes"
