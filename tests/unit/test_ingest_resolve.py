"""Normalisation, entity resolution (within and across runs) and schema pruning."""

from __future__ import annotations

from collections import Counter

from graphwire.core.names import entity_key, label_norm
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.ingest.prune import prune
from graphwire.ingest.resolve import EntityResolver
from graphwire.schema.model import load_schema

ROLES = load_schema().roles  # the news schema's: which labels drop "the" and a suffix


def test_normalisation_drops_case_punctuation_suffixes_and_the() -> None:
    assert label_norm("Apple Inc.", "Organization", ROLES) == "apple"
    assert label_norm("The Verge", "Publication", ROLES) == label_norm("Verge", "Publication", ROLES)
    assert label_norm("Café  Señor", "Organization", ROLES) == "cafe senor"
    assert label_norm("Musk\u2019s", "Person", ROLES) == "musk"
    assert entity_key("Organization", "OpenAI, Inc.", ROLES) == "Organization:openai"
    assert label_norm("The Who", "Person", ROLES) == "the who"  # "the" is kept where it is not noise


def test_suffix_variants_and_publications_merge() -> None:
    resolver = EntityResolver(
        publication_aliases={"independent": "The Independent - Life and Style"}, schema=load_schema()
    )
    a = resolver.resolve("Apple Inc.", "Organization")
    b = resolver.resolve("Apple", "Organization")
    assert a is not None and b is not None and a.key == b.key
    assert set(a.aliases) == {"Apple Inc.", "Apple"}
    verge = resolver.resolve("The Verge", "Publication")
    assert verge is not None and resolver.resolve("Verge", "Publication") is verge
    indie = resolver.resolve("The Independent", "Publication")
    assert indie is not None and indie.name == "The Independent - Life and Style"


def test_fuzzy_within_label_only_above_threshold_and_never_across_numbers() -> None:
    resolver = EntityResolver(fuzzy_threshold=90, schema=load_schema())
    base = resolver.resolve("Sam Bankman-Fried", "Person")
    typo = resolver.resolve("Sam Bankman Fryed", "Person")
    assert base is not None and typo is not None and typo.key == base.key
    assert resolver.stats.fuzzy == 1
    assert resolver.resolve("PlayStation 5", "Product") is not resolver.resolve("PlayStation 4", "Product")
    assert resolver.resolve("Greta C. Natarajan", "Person") is not resolver.resolve("Greta D. Natarajan", "Person")
    assert resolver.resolve("Boreal Ember Robotics", "Organization") is not resolver.resolve(
        "Boreal Umber Robotics", "Organization"
    )
    place = resolver.resolve("Jordan", "Location")
    person = resolver.resolve("Jordan", "Person")
    assert place is not None and person is not None and place.key != person.key


def test_resolution_across_runs_uses_the_graph_entities() -> None:
    earlier = EntityResolver(schema=load_schema())
    first = earlier.resolve("Alphabet Inc.", "Organization")
    assert first is not None
    later = EntityResolver(schema=load_schema())
    later.load([{"key": first.key, "label": "Organization", "name": first.name, "norm": first.norm,
                 "aliases": ["Alphabet Inc.", "Google parent Alphabet"]}])  # fmt: skip
    again = later.resolve("Google parent Alphabet", "Organization")
    assert again is not None and again.key == first.key and later.stats.alias == 1


def test_lone_surname_resolves_to_the_full_name_in_the_document() -> None:
    resolver = EntityResolver(schema=load_schema())
    chunk1 = Extraction(chunk_id="c1", entities=[ExtractedEntity(name="Ada Park", label="Person")])
    chunk2 = Extraction(
        chunk_id="c2",
        entities=[
            ExtractedEntity(name="Park", label="Location"),
            ExtractedEntity(name="Lumen Labs", label="Organization"),
        ],
        relations=[ExtractedRelation(source="Park", source_label="Location", type="CEO_OF", target="Lumen Labs",
                                     target_label="Organization")],
    )  # fmt: skip
    out = resolver.resolve_document([chunk1, chunk2])
    assert {(e.name, e.label) for e in out[1].entities} == {("Ada Park", "Person"), ("Lumen Labs", "Organization")}
    rel = out[1].relations[0]
    assert (rel.source, rel.source_label) == ("Ada Park", "Person")


def test_prune_drops_off_schema_and_counts_reasons() -> None:
    schema = load_schema()
    extraction = Extraction(
        chunk_id="c",
        entities=[ExtractedEntity(name="Ada Park", label="Person"), ExtractedEntity(name="Gizmo", label="Gadget")],
        relations=[
            ExtractedRelation(source="Ada Park", source_label="Person", type="CEO_OF", target="Lumen Labs",
                              target_label="Organization"),
            ExtractedRelation(source="Ada Park", source_label="Person", type="LIKES", target="Gizmo",
                              target_label="Gadget"),
            ExtractedRelation(source="Lumen Labs", source_label="Organization", type="CEO_OF", target="Ada Park",
                              target_label="Person"),
        ],
    )  # fmt: skip
    dropped: Counter[str] = Counter()
    clean = prune(extraction, schema, dropped)
    assert [(r.source, r.type, r.target) for r in clean.relations] == [("Ada Park", "CEO_OF", "Lumen Labs")]
    assert {(e.name, e.label) for e in clean.entities} == {("Ada Park", "Person"), ("Lumen Labs", "Organization")}
    assert dropped == Counter({
        "entity label 'Gadget' not in schema": 1,
        "relationship type 'LIKES' not in schema": 1,
        "pattern (Organization)-[:CEO_OF]->(Person) not allowed": 1,
    })  # fmt: skip


def test_a_surname_alias_does_not_capture_other_people_with_that_surname() -> None:
    resolver = EntityResolver(schema=load_schema())
    ada = resolver.resolve("Ada Park", "Person")
    assert ada is not None
    resolver.add_alias(ada, "Park")
    assert "Park" in ada.aliases
    other = resolver.resolve("Park", "Person")  # another document's lone "Park"
    assert other is not None and other.key != ada.key
    inc = resolver.resolve("Lumen Labs", "Organization")
    assert inc is not None
    resolver.add_alias(inc, "Lumen Labs GmbH")
    again = resolver.resolve("Lumen", "Organization")
    assert again is not None and again.key != inc.key  # no fuzzy or prefix merge of a different name
