# ruff: noqa: E501  (a table of sentence cases: one case per line)
"""The offline extractor's relation patterns, each on a sentence that states it (and near-misses that must not).

Entities come from a test gazetteer so these tests pin the patterns, not spaCy's NER guesses; one test checks that
plain NER still works without it.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.extractors.patterns import compile_patterns
from graphwire.ingest.gazetteer import Gazetteer, KnownEntity
from graphwire.schema.model import load_schema

KNOWN = {
    "Person": ["Ada Park", "Ben Ortiz", "Cara Lee", "Dev Rao"],
    "Organization": ["Lumen Labs", "Paradigm Ventures", "Northwind Robotics", "Federal Trade Commission",
                     "Vantor Dynamics", "Stahlwerk Group", "Corvid Silicon"],
    "Product": ["Lumen L1", "Hawkline"],
    "CreativeWork": ["The Long Road"],
    "Event": ["Kestrel Patent Hearing", "Berlin Marathon"],
    "Location": ["Berlin", "Germany", "Munich", "France", "Paris", "Alameda"],
    "Award": ["Lisbon Design Award"],
}  # fmt: skip

CASES = [
    ("ceo_apposition", "Ada Park, the chief executive of Lumen Labs, spoke on Monday.", ("Ada Park", "CEO_OF", "Lumen Labs")),
    ("org_ceo_name", "Lumen Labs CEO Ada Park said sales rose.", ("Ada Park", "CEO_OF", "Lumen Labs")),
    ("named_ceo", "Ada Park was named CEO of Lumen Labs in May.", ("Ada Park", "CEO_OF", "Lumen Labs")),
    ("role_apposition", "Ben Ortiz, a board member of Northwind Robotics, resigned.", ("Ben Ortiz", "WORKS_FOR", "Northwind Robotics")),
    ("former_org_role", "Dev Rao, the former Lumen Labs executive, testified.", ("Dev Rao", "WORKS_FOR", "Lumen Labs")),
    ("org_role_name", "Northwind Robotics engineer Ben Ortiz built the arm.", ("Ben Ortiz", "WORKS_FOR", "Northwind Robotics")),
    ("works_for", "Ben Ortiz joined Northwind Robotics last year.", ("Ben Ortiz", "WORKS_FOR", "Northwind Robotics")),
    ("founded", "Cara Lee founded Corvid Silicon in 2019.", ("Cara Lee", "FOUNDED", "Corvid Silicon")),
    ("founder_of", "Cara Lee, the co-founder of Corvid Silicon, left.", ("Cara Lee", "FOUNDED", "Corvid Silicon")),
    ("org_founder_name", "Corvid Silicon founder Cara Lee spoke.", ("Cara Lee", "FOUNDED", "Corvid Silicon")),
    ("founded_by", "Corvid Silicon, founded by Cara Lee, makes chips.", ("Cara Lee", "FOUNDED", "Corvid Silicon")),
    ("acquired", "Stahlwerk Group acquired Vantor Dynamics in 2020.", ("Stahlwerk Group", "OWNS", "Vantor Dynamics")),
    ("acquisition_of", "Stahlwerk Group's $2 billion acquisition of Vantor Dynamics closed.", ("Stahlwerk Group", "OWNS", "Vantor Dynamics")),
    ("owned_by", "Vantor Dynamics, which is owned by Stahlwerk Group, makes drones.", ("Stahlwerk Group", "OWNS", "Vantor Dynamics")),
    ("subsidiary_of", "Vantor Dynamics, a subsidiary of Stahlwerk Group, grew.", ("Stahlwerk Group", "OWNS", "Vantor Dynamics")),
    ("owner_of", "Dev Rao, the owner of Vantor Dynamics, declined to comment.", ("Dev Rao", "OWNS", "Vantor Dynamics")),
    ("invested_in", "Paradigm Ventures invested $40 million in Lumen Labs.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("led_round", "Paradigm Ventures led a $40 million funding round in Lumen Labs.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("investor_in", "Paradigm Ventures, an early investor in Lumen Labs, was pleased.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("investment_in", "Paradigm Ventures's stake in Lumen Labs doubled.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("raised_from", "Lumen Labs raised $40 million from Paradigm Ventures.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("backed_by", "Lumen Labs, which is backed by Paradigm Ventures, hired staff.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("org_investor_name", "Lumen Labs investor Paradigm Ventures sold shares.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("x_backed", "Paradigm Ventures-backed Lumen Labs hired staff.", ("Paradigm Ventures", "INVESTED_IN", "Lumen Labs")),
    ("sued", "Vantor Dynamics sued Corvid Silicon on Monday.", ("Vantor Dynamics", "SUED", "Corvid Silicon")),
    ("lawsuit_against", "Vantor Dynamics's patent lawsuit against Corvid Silicon was dismissed.", ("Vantor Dynamics", "SUED", "Corvid Silicon")),
    ("sued_by", "Corvid Silicon was sued by Vantor Dynamics.", ("Vantor Dynamics", "SUED", "Corvid Silicon")),
    ("charged_with", "Dev Rao was charged with wire fraud.", ("Dev Rao", "CHARGED_WITH", "wire fraud")),
    ("testified", "Ada Park testified at the Kestrel Patent Hearing.", ("Ada Park", "TESTIFIED_IN", "Kestrel Patent Hearing")),
    ("attended", "Ada Park attended the Kestrel Patent Hearing.", ("Ada Park", "ATTENDED", "Kestrel Patent Hearing")),
    ("competed", "Ben Ortiz competed in the Berlin Marathon.", ("Ben Ortiz", "COMPETED_IN", "Berlin Marathon")),
    ("scored", "Ben Ortiz scored twice in the Berlin Marathon.", ("Ben Ortiz", "SCORED_IN", "Berlin Marathon")),
    ("partner_possessive", "Ada Park's husband Ben Ortiz attended.", ("Ada Park", "ROMANTIC_LINK", "Ben Ortiz")),
    ("dating", "Ada Park is dating Ben Ortiz.", ("Ada Park", "ROMANTIC_LINK", "Ben Ortiz")),
    ("family_possessive", "Ada Park's daughter Cara Lee spoke.", ("Ada Park", "FAMILY_OF", "Cara Lee")),
    ("family_of", "Cara Lee, the daughter of Ada Park, spoke.", ("Cara Lee", "FAMILY_OF", "Ada Park")),
    ("based_in", "Lumen Labs, which is based in Berlin, hired staff.", ("Lumen Labs", "LOCATED_IN", "Berlin")),
    ("loc_based", "The Berlin-based startup Lumen Labs hired staff.", ("Lumen Labs", "LOCATED_IN", "Berlin")),
    ("held_in", "The Berlin Marathon, held in Berlin, drew crowds.", ("Berlin Marathon", "LOCATED_IN", "Berlin")),
    ("city_country", "The office is in Munich, Germany.", ("Munich", "LOCATED_IN", "Germany")),
    ("org_launched", "Lumen Labs launched the Lumen L1 on Monday.", ("Lumen Labs", "PRODUCED", "Lumen L1")),
    ("person_created", "Cara Lee wrote The Long Road in 2020.", ("Cara Lee", "PRODUCED", "The Long Road")),
    ("org_possessive_product", "Lumen Labs's Lumen L1 uses little power.", ("Lumen Labs", "PRODUCED", "Lumen L1")),
    ("made_by", "The Hawkline, made by Vantor Dynamics, flies far.", ("Vantor Dynamics", "PRODUCED", "Hawkline")),
    ("won_award", "Ada Park won the Lisbon Design Award.", ("Ada Park", "RECEIVED", "Lisbon Design Award")),
    ("rival_apposition", "Corvid Silicon is a rival of Lumen Labs.", ("Corvid Silicon", "COMPETES_WITH", "Lumen Labs")),
    ("competes_with", "Corvid Silicon competes with Lumen Labs.", ("Corvid Silicon", "COMPETES_WITH", "Lumen Labs")),
    ("regulator_action", "The Federal Trade Commission fined Lumen Labs on Monday.", ("Federal Trade Commission", "REGULATES", "Lumen Labs")),
    ("regulator_probe", "The Federal Trade Commission's probe into Lumen Labs widened.", ("Federal Trade Commission", "REGULATES", "Lumen Labs")),
    ("fined_by", "Lumen Labs was fined by the Federal Trade Commission.", ("Federal Trade Commission", "REGULATES", "Lumen Labs")),
]  # fmt: skip

NEAR_MISSES = [
    "Ada Park met Lumen Labs executives in Berlin.",  # no role stated
    "Paradigm Ventures may invest in Lumen Labs next year, people said.",  # speculation
    "Stahlwerk Group agreed to acquire Vantor Dynamics.",  # not (yet) owned
    "Vantor Dynamics fined Corvid Silicon.",  # a company is not a regulator
    "Ada Park and Ben Ortiz met at the Kestrel Patent Hearing.",  # no attendance verb
    "France, Germany and Paris were mentioned.",  # a list is not a location hierarchy
    "After protests in Paris, France banned the group.",  # the country starts the next clause
    "Dev Rao wrote about wire fraud.",  # a topic, not a charge
]


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    gazetteer = Gazetteer.from_sources([], schema=load_schema())
    known = [KnownEntity(name=n, label=label) for label, names in KNOWN.items() for n in names]
    return OfflineExtractor(load_schema(), gazetteer.model_copy(update={"known": known}))


def _triples(extractor: OfflineExtractor, text: str) -> set[tuple[str, str, str]]:
    return {(r.source, r.type, r.target) for r in extractor.extract_text(text).relations}


def test_every_pattern_has_a_case() -> None:
    assert {name for name, _, _ in CASES} == {p.name for p in compile_patterns(load_schema())}


@pytest.mark.parametrize(("name", "sentence", "expected"), CASES, ids=[c[0] for c in CASES])
def test_pattern_extracts_exactly_the_stated_relation(
    extractor: OfflineExtractor, name: str, sentence: str, expected: tuple[str, str, str]
) -> None:
    assert _triples(extractor, sentence) == {expected}


@pytest.mark.parametrize("sentence", NEAR_MISSES)
def test_near_misses_give_no_relation(extractor: OfflineExtractor, sentence: str) -> None:
    assert _triples(extractor, sentence) == set()


def test_chief_executive_is_not_also_works_for(extractor: OfflineExtractor) -> None:
    assert _triples(extractor, "Ada Park, the chief executive of Lumen Labs, spoke.") == {
        ("Ada Park", "CEO_OF", "Lumen Labs")
    }


def test_role_modifiers_and_founder_titles(extractor: OfflineExtractor) -> None:
    assert _triples(extractor, "Lumen Labs's search head Ben Ortiz testified.") == {
        ("Ben Ortiz", "WORKS_FOR", "Lumen Labs")
    }
    assert _triples(extractor, "Lumen Labs co-founder and former CTO Ben Ortiz pleaded guilty.") == {
        ("Ben Ortiz", "FOUNDED", "Lumen Labs"),
        ("Ben Ortiz", "WORKS_FOR", "Lumen Labs"),
    }
    assert _triples(extractor, "Lumen Labs CTO Ben Ortiz spoke.") == {("Ben Ortiz", "WORKS_FOR", "Lumen Labs")}
    assert _triples(extractor, "Lumen Labs Berlin Ben Ortiz spoke.") == set()  # a capitalised word is no role
    assert _triples(extractor, "Ada Park's attorney Ben Ortiz spoke.") == set()  # a lawyer is not an employee


def test_a_role_pattern_retypes_a_mistyped_employer(extractor: OfflineExtractor) -> None:
    extraction = extractor.extract_text("Cara Lee, the former CEO of Alameda, testified.")
    assert {(r.source, r.type, r.target, r.target_label) for r in extraction.relations} == {
        ("Cara Lee", "CEO_OF", "Alameda", "Organization")
    }
    assert {(e.name, e.label) for e in extraction.entities} == {("Cara Lee", "Person"), ("Alameda", "Organization")}
    assert _triples(extractor, "Cara Lee's tenure as CEO of Lumen Labs ended.") == {
        ("Cara Lee", "CEO_OF", "Lumen Labs")
    }
    assert _triples(extractor, "Cara Lee moved to Berlin, the capital.") == set()


def test_appositive_between_subject_and_verb_is_skipped(extractor: OfflineExtractor) -> None:
    text = "Dev Rao, the former CEO of Vantor Dynamics, was convicted of wire fraud and money laundering."
    assert _triples(extractor, text) == {
        ("Dev Rao", "CEO_OF", "Vantor Dynamics"),
        ("Dev Rao", "CHARGED_WITH", "wire fraud"),
        ("Dev Rao", "CHARGED_WITH", "money laundering"),
    }


def test_relations_carry_their_sentence_as_evidence(extractor: OfflineExtractor) -> None:
    extraction = extractor.extract_text("Lumen Labs is growing. Lumen Labs CEO Ada Park said sales rose.")
    assert [r.evidence for r in extraction.relations] == ["Lumen Labs CEO Ada Park said sales rose."]
    assert {(e.name, e.mentions) for e in extraction.entities} == {("Lumen Labs", 2), ("Ada Park", 1)}


def test_plain_ner_types_well_known_names_and_outlets() -> None:
    extractor = OfflineExtractor(load_schema(), Gazetteer.from_sources(["TechCrunch"], schema=load_schema()))
    extraction = extractor.extract_text("Sam Bankman-Fried, the former CEO of FTX, told TechCrunch about Apple.")
    labels = {(e.name, e.label) for e in extraction.entities}
    assert {("Sam Bankman-Fried", "Person"), ("TechCrunch", "Publication")} <= labels
    assert ("Sam Bankman-Fried", "CEO_OF", "FTX") in _triples(
        extractor, "Sam Bankman-Fried, the former CEO of FTX, spoke."
    )


def test_another_schema_labels_come_through_the_gazetteer() -> None:
    known = [KnownEntity(name="Aspirin", label="Drug"), KnownEntity(name="migraine", label="Disease")]
    gazetteer = Gazetteer.from_sources([], include_common=False, schema=load_schema()).model_copy(
        update={"known": known}
    )
    extractor = OfflineExtractor(load_schema(), gazetteer, allowed_labels=["Drug", "Disease", "Person"])
    extraction = extractor.extract_text("Dr. Ada Park said that Aspirin eased her migraine.")
    assert {(e.name, e.label) for e in extraction.entities} == {
        ("Aspirin", "Drug"),
        ("migraine", "Disease"),
        ("Ada Park", "Person"),
    }


def test_worker_processes_give_the_same_extractions_and_failures_cross_back(extractor: OfflineExtractor) -> None:
    from graphwire.core.documents import Chunk
    from graphwire.ingest.extractors.base import ExtractionFailure

    texts = [text for _, text, _ in CASES[:12]]
    chunks = [Chunk(id=f"c{i}", document_id=f"d{i}", index=1, text=t, title="") for i, t in enumerate(texts)]
    pooled = OfflineExtractor(load_schema(), extractor.gazetteer, n_process=2, in_process_chunks=0)
    try:
        in_workers = pooled.extract(chunks)
        assert pooled._pool is not None  # the workers did the work
    finally:
        pooled.close()
    here = extractor.extract(chunks)

    def facts(results: list[Any]) -> list[tuple[str, list[tuple[str, str, str]]]]:
        return [(r.chunk_id, sorted((x.source, x.type, x.target) for x in r.relations)) for r in results]

    assert facts(in_workers) == facts(here) and len(in_workers) == len(chunks)
    failure = pickle.loads(pickle.dumps(ExtractionFailure("c9", "ValueError: odd text")))
    assert (failure.chunk_id, failure.reason) == ("c9", "ValueError: odd text")
