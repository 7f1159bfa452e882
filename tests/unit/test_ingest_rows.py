"""The rows a batch writes: CREATE rows for what the graph lacks, MERGE rows for what it has, entities only when new
or changed, and provenance shaped for the statements in cypher/ingest."""

from __future__ import annotations

from datetime import date

import pytest
from support.schemas import news_caps

from graphwire.core.documents import Article
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.known_relations import KnownRelations
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.ingest.resolve import EntityResolver
from graphwire.ingest.rows import GraphRows, build_rows
from graphwire.schema.model import load_schema


def article(n: int, day: date = date(2026, 3, 10)) -> Article:
    return Article(title=f"Story {n}", body=f"Ada Park leads Lumen Labs. Story number {n}.", source="Harbor Times",
                   published_at=day, url=f"https://example.test/{n}")  # fmt: skip


def ceo_extraction(chunk_id: str, evidence: str | None = "Ada Park leads Lumen Labs.") -> Extraction:
    return Extraction(
        chunk_id=chunk_id,
        entities=[
            ExtractedEntity(name="Ada Park", label="Person"),
            ExtractedEntity(name="Lumen Labs", label="Organization"),
        ],
        relations=[
            ExtractedRelation(
                source="Ada Park",
                source_label="Person",
                type="CEO_OF",
                target="Lumen Labs",
                target_label="Organization",
                evidence=evidence,
            )
        ],  # fmt: skip
    )


def ceo_rows(doc: Article, resolver: EntityResolver, known: KnownRelations) -> GraphRows:
    """The rows of one article whose first chunk's extraction names its CEO, under the news schema's caps."""
    chunks = chunk_article(doc)
    return build_rows([doc], chunks, [ceo_extraction(chunks[0].id)], resolver, known, provenance=news_caps())


def test_known_relations_need_a_way_to_read_the_stored_entities() -> None:
    known = KnownRelations({"Person:ada park"}.__contains__)
    known.prefetch(["Organization:lumen labs"])  # not stored: nothing to read
    with pytest.raises(ValueError, match="fetch"):
        known.prefetch(["Person:ada park"])


def test_new_documents_get_create_rows_and_stored_ones_merge_rows() -> None:
    new, stored = article(1), article(2)
    chunks = chunk_article(new) + chunk_article(stored)
    resolver = EntityResolver(schema=load_schema())
    rows = build_rows([new, stored], chunks, [ceo_extraction(c.id) for c in chunks], resolver,
                      KnownRelations(), stored_documents={stored.doc_id}, provenance=news_caps())  # fmt: skip
    assert [r["id"] for r in rows.documents.new] == [new.doc_id]
    assert [r["id"] for r in rows.documents.stored] == [stored.doc_id]
    assert {r["document_id"] for r in rows.chunks.new} == {new.doc_id}
    assert {r["chunk_id"] for r in rows.mentions.stored} == {c.id for c in chunk_article(stored)}
    assert rows.documents.new[0]["publication"] == "Publication:harbor times"
    assert rows.documents.new[0]["date"] == "2026-03-10"


def test_entities_are_written_when_new_or_changed_only() -> None:
    resolver, known = EntityResolver(schema=load_schema()), KnownRelations()
    first = article(1)
    rows = ceo_rows(first, resolver, known)
    assert {r["key"] for r in rows.entities} == {
        "Publication:harbor times",
        "Person:ada park",
        "Organization:lumen labs",
    }
    second = article(2)
    rows = ceo_rows(second, resolver, known)
    assert rows.entities == []  # nothing new about them
    third = article(3)
    renamed = ExtractedEntity(name="Lumen Labs Inc.", label="Organization")
    alias = Extraction(chunk_id=chunk_article(third)[0].id, entities=[renamed])
    rows = build_rows([third], chunk_article(third), [alias], resolver, known, provenance=news_caps())
    assert [(r["key"], r["aliases"]) for r in rows.entities] == [
        ("Organization:lumen labs", ["Lumen Labs", "Lumen Labs Inc."])
    ]


def test_entities_loaded_from_the_graph_are_not_rewritten_until_they_change() -> None:
    resolver = EntityResolver(schema=load_schema())
    resolver.load([{"key": "Person:ada park", "label": "Person", "name": "Ada Park", "norm": "ada park",
                    "aliases": ["Ada Park"]}])  # fmt: skip
    assert resolver.take_unstored(["Person:ada park"]) == []
    entity = resolver.resolve("ADA PARK", "Person")  # a new surface form of the same person
    assert entity is not None and entity.key == "Person:ada park"
    assert [e.key for e in resolver.take_unstored(["Person:ada park"])] == ["Person:ada park"]


def test_relations_are_created_once_then_merged_and_inferred_ones_carry_no_evidence() -> None:
    fetched: list[list[str]] = []

    def fetch(keys: list[str]) -> list[dict[str, str]]:
        fetched.append(keys)
        return [{"source": "Person:ada park", "type": "WORKS_FOR", "target": "Organization:lumen labs"}]

    resolver = EntityResolver(schema=load_schema())
    stored = {"Person:ada park", "Organization:vantor dynamics"}  # what the graph had
    known = KnownRelations(stored.__contains__, fetch)
    first, second = article(1), article(2, date(2026, 3, 11))
    rows = ceo_rows(first, resolver, known)
    created = {(r["source"], r["type"], r["target"]): r for r in rows.relations.new}
    assert set(created) == {
        ("Person:ada park", "CEO_OF", "Organization:lumen labs"),
        ("Person:ada park", "REPORTED_BY", "Publication:harbor times"),
        ("Organization:lumen labs", "REPORTED_BY", "Publication:harbor times"),
    }
    assert rows.relations.stored == []
    ceo = created[("Person:ada park", "CEO_OF", "Organization:lumen labs")]
    assert ceo["evidence"] == ["Ada Park leads Lumen Labs."] and ceo["chunk_ids"] == [chunk_article(first)[0].id]
    assert created[("Person:ada park", "REPORTED_BY", "Publication:harbor times")]["evidence"] is None
    rows = ceo_rows(second, resolver, known)
    assert rows.relations.new == [] and len(rows.relations.stored) == 3  # the same facts again: MERGE
    assert not known.claim("Person:ada park", "WORKS_FOR", "Organization:lumen labs")  # read from the graph
    assert fetched == [["Person:ada park"]]  # once, and only for the source the graph already had
    assert rows.days == [{"date": "2026-03-11", "year": 2026, "month": 3, "day": 11, "prev": "2026-03-10",
                          "next": "2026-03-12"}]  # fmt: skip


def test_each_mention_records_the_names_its_chunk_taught_the_entity() -> None:
    """A chunk's mention carries the normalised names it used, so a restricted reader is shown only the aliases its
    readable chunks taught (GraphSnapshot.restricted); a mention that is the first of an entity teaches its name."""
    resolver, known = EntityResolver(schema=load_schema()), KnownRelations()
    first, second = article(1), article(2)
    ceo_rows(first, resolver, known)
    chunk = chunk_article(second)[0]
    called = ExtractedEntity(name="Lumen Labs Inc.", label="Organization", aliases=["Lumen"])
    rows = build_rows([second], [chunk], [Extraction(chunk_id=chunk.id, entities=[called])], resolver, known,
                      provenance=news_caps())  # fmt: skip
    [mention] = [m for m in rows.mentions.new if m["key"] == "Organization:lumen labs"]
    assert mention["names"] == ["lumen", "lumen labs"]  # "Inc." is a legal form: the same normalised name
    [earlier] = [m for m in ceo_rows(article(3), resolver, known).mentions.new if m["key"] == "Person:ada park"]
    assert earlier["names"] == ["ada park"]
