"""The extractive answerer and the registry's answerer selection, on hand-built retrieval results."""

from __future__ import annotations

from datetime import date

import pytest

from core.settings import Settings
from retrieval.answer.extractive import ExtractiveAnswerer, asked_label, asked_relations
from retrieval.models import ABSTENTION, EntityMatch, Fact, FactTier, MatchTier, RankedChunk, RetrievalResult
from retrieval.registry import AnswererName, RetrievalContext, UnknownModeError, build_answerer, build_retriever


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
    assert asked_relations("Which company supplies the supplier of Kestrel Motors?") == {"SUPPLIES": 2}
    assert asked_label("Which company supplies Kestrel?") == "Organization"
    assert asked_label("Who runs Kestrel Motors?") == "Person"
    assert asked_label("What happened?") is None


def test_chain_depth_follows_how_often_the_relation_is_asked() -> None:
    answerer = ExtractiveAnswerer()
    two_hops = answerer.answer("Which company supplies the supplier of Kestrel Motors?", SUPPLY_CHAIN)
    one_hop = answerer.answer("Which company supplies Kestrel Motors?", SUPPLY_CHAIN)
    assert (two_hops.text, [c.chunk_id for c in two_hops.citations]) == ("Quarrow", ["c2"])
    assert one_hop.text == "Brightcell"
    assert answerer.answer("Who is the chief executive of Kestrel Motors?", SUPPLY_CHAIN).text == "Ilse Varga"


def test_abstains_without_entities_or_without_a_fact_of_the_asked_kind() -> None:
    answerer = ExtractiveAnswerer()
    empty = RetrievalResult(mode="graph", details={"abstain_reason": "no match"})
    assert answerer.answer("Who is the CEO of Pellucid Robotics?", empty).text == ABSTENTION
    award = answerer.answer("Which award did Kestrel Motors receive?", SUPPLY_CHAIN)
    assert award.text == ABSTENTION and award.abstained and award.citations == []


def test_yes_no_needs_a_key_fact_of_the_asked_relation() -> None:
    result = RetrievalResult(
        mode="graph",
        entities=[_entity("Brightcell"), _entity("Kestrel Motors")],
        facts=[_fact(FactTier.KEY, "Brightcell", "SUPPLIES", "Kestrel Motors", "c1")],
        chunks=[_chunk("c1")],
        details={"yes_no": True},
    )
    answerer = ExtractiveAnswerer()
    assert answerer.answer("Does Brightcell supply Kestrel Motors?", result).text == "Yes"
    assert answerer.answer("Did Brightcell sue Kestrel Motors?", result).text == ABSTENTION


@pytest.mark.parametrize(("order", "expected"), [("before", "Yes"), ("after", "No")])
def test_temporal_compares_each_outlets_best_chunk(order: str, expected: str) -> None:
    result = RetrievalResult(
        mode="graph",
        entities=[_entity("Kestrel K2", "Product")],
        chunks=[
            _chunk("n1", "Northgate", date(2024, 3, 9), "Kestrel K2 recall widens"),
            _chunk("h0", "Harbor", date(2024, 2, 1), "Kestrel K2 deal"),
            _chunk("h1", "Harbor", date(2024, 3, 4), "Kestrel K2 recall begins"),
        ],
        details={
            "yes_no": True,
            "order": order,
            "outlets": [{"name": "Harbor", "sources": ["Harbor"]}, {"name": "Northgate", "sources": ["Northgate"]}],
        },
    )
    answer = ExtractiveAnswerer().answer(f"Did Harbor report the Kestrel K2 recall {order} Northgate?", result)
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
    cited_elsewhere = SUPPLY_CHAIN.model_copy(update={"details": {"unknown_publications": ["Reuters"]}})
    answer = ExtractiveAnswerer().answer(
        "According to Reuters, which company supplies Kestrel Motors?", cited_elsewhere
    )
    assert answer.text == ABSTENTION
    assert ExtractiveAnswerer().answer("Which company supplies Kestrel Motors?", SUPPLY_CHAIN).text == "Brightcell"


def test_order_questions_are_told_from_change_questions() -> None:
    from retrieval.answer.extractive import asks_about_order

    assert asks_about_order("Did Harbor report the Kestrel K2 recall before Northgate?")
    assert not asks_about_order("Was there a change in the portrayal of Google after the Verge report?")
    assert not asks_about_order("Was the TechCrunch report consistent with the later Verge report?")
