"""Capped provenance on the Python side: a `provenance: inferred` type's rows keep the cap smallest chunk ids, sorted,
evidence parallel; other types keep every chunk; the schema says which types, PROVENANCE_CAP how many."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphwire.core.documents import Article
from graphwire.core.schema import configured_schema
from graphwire.core.settings import Settings, get_settings
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.enrich import Triple
from graphwire.ingest.known_relations import KnownRelations
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.ingest.provenance import ProvenanceCaps, keep_capped
from graphwire.ingest.resolve import EntityResolver
from graphwire.ingest.rows import GraphRows, Row, build_rows
from graphwire.schema.model import GraphSchema, load_schema

ENCYCLOPEDIA = Path(__file__).resolve().parents[2] / "schema" / "encyclopedia.yaml"
ADA, LUMEN, HARBOR = "Person:ada park", "Organization:lumen labs", "Publication:harbor times"
STATED = "Harbor Times reported the review."


def _articles(n: int) -> list[Article]:
    return [Article(title=f"Harbor brief {i}", body=f"Ada Park leads Lumen Labs. Review {i} ran late.",
                    source="Harbor Times") for i in range(n)]  # fmt: skip


def _from_ada(rel_type: str, target: str, target_label: str, evidence: str) -> ExtractedRelation:
    return ExtractedRelation(source="Ada Park", source_label="Person", type=rel_type, target=target,
                             target_label=target_label, evidence=evidence)  # fmt: skip


def _extraction(chunk_id: str, stated: bool) -> Extraction:
    entities = [
        ExtractedEntity(name="Ada Park", label="Person"),
        ExtractedEntity(name="Lumen Labs", label="Organization"),
    ]
    relations = [_from_ada("CEO_OF", "Lumen Labs", "Organization", "Ada Park leads Lumen Labs.")]
    if stated:  # the sentence states the report: an extracted REPORTED_BY with evidence
        relations.append(_from_ada("REPORTED_BY", "Harbor Times", "Publication", STATED))
    return Extraction(chunk_id=chunk_id, entities=entities, relations=relations)


def _rows(articles: list[Article], stated: set[str], provenance: ProvenanceCaps) -> dict[Triple, Row]:
    chunks = [c for a in articles for c in chunk_article(a)]
    extractions = [_extraction(c.id, c.id in stated) for c in chunks]
    rows: GraphRows = build_rows(
        articles, chunks, extractions, EntityResolver(schema=load_schema()), KnownRelations(), provenance=provenance
    )
    return {(r["source"], r["type"], r["target"]): r for r in rows.relations.new}


def _ids(articles: list[Article]) -> list[str]:
    return [c.id for a in articles for c in chunk_article(a)]


def test_keep_capped_sorts_cuts_the_implied_entries_and_keeps_every_stated_one() -> None:
    assert keep_capped(["c", "a", "d", "b"], ["", "", "", ""], 3) == (["a", "b", "c"], ["", "", ""])
    assert keep_capped(["c", "a", "d", "b"], ["3", "", "4", ""], 1) == (["a", "c", "d"], ["", "3", "4"])
    assert keep_capped(["b", "a"], ["", "x"], 5) == (["a", "b"], ["x", ""])
    assert keep_capped(["a10", "a9", "a1"], ["", "", ""], 2) == (["a1", "a10"], ["", ""])  # string order


def test_an_inferred_type_keeps_the_cap_smallest_chunk_ids_and_other_types_keep_all() -> None:
    articles = _articles(6)
    ids = _ids(articles)
    rows = _rows(articles, set(), ProvenanceCaps(frozenset({"REPORTED_BY"}), 2))
    for source in (ADA, LUMEN):
        reported = rows[(source, "REPORTED_BY", HARBOR)]
        assert (reported["chunk_ids"], reported["evidence"], reported["cap"]) == (sorted(ids)[:2], None, 2)
    ceo = rows[(ADA, "CEO_OF", LUMEN)]
    assert (ceo["chunk_ids"], ceo["cap"]) == (ids, None)  # every chunk, in the order they came
    assert ceo["evidence"] == ["Ada Park leads Lumen Labs."] * 6


def test_a_stated_chunk_is_kept_beside_the_cap_and_a_list_of_only_empty_entries_is_none() -> None:
    articles = _articles(5)
    ids = sorted(_ids(articles))
    caps = ProvenanceCaps(frozenset({"REPORTED_BY"}), 3)
    small = _rows(articles, {ids[1]}, caps)[(ADA, "REPORTED_BY", HARBOR)]
    assert (small["chunk_ids"], small["evidence"]) == (ids[:4], ["", STATED, "", ""])
    large = _rows(articles, {ids[4]}, caps)[(ADA, "REPORTED_BY", HARBOR)]  # beyond the cap, and kept: it is stated
    assert (large["chunk_ids"], large["evidence"]) == ([*ids[:3], ids[4]], ["", "", "", STATED])
    implied = _rows(articles, set(), caps)[(ADA, "REPORTED_BY", HARBOR)]
    assert (implied["chunk_ids"], implied["evidence"]) == (ids[:3], None)


def test_without_a_flag_nothing_is_capped() -> None:
    articles = _articles(4)
    rows = _rows(articles, set(), ProvenanceCaps(frozenset(), 1))
    assert len(rows[(ADA, "REPORTED_BY", HARBOR)]["chunk_ids"]) == 4


@pytest.fixture
def cap_setting(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PROVENANCE_CAP", "2")
    monkeypatch.delenv("SCHEMA_PATH", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.usefixtures("cap_setting")
def test_the_rows_follow_the_caps_of_the_configured_schema_and_cap() -> None:
    articles = _articles(4)
    caps = ProvenanceCaps.of(configured_schema(get_settings()), get_settings())
    rows = _rows(articles, set(), caps)
    assert rows[(ADA, "REPORTED_BY", HARBOR)]["chunk_ids"] == sorted(_ids(articles))[:2]
    assert caps == ProvenanceCaps(frozenset({"REPORTED_BY"}), 2)


def test_the_schema_marks_the_inferred_types() -> None:
    news = load_schema()
    assert news.inferred_types == {"REPORTED_BY"}
    assert load_schema(ENCYCLOPEDIA).inferred_types == frozenset()  # it has no REPORTED_BY type
    caps = ProvenanceCaps.of(news, Settings(provenance_cap=7))
    assert (caps.cap_for("REPORTED_BY"), caps.cap_for("CEO_OF")) == (7, None)
    assert caps.params() == {"capped_types": ["REPORTED_BY"], "cap": 7}


def test_the_reported_by_ingest_infers_is_capped_under_a_schema_without_the_flag() -> None:
    caps = ProvenanceCaps.of(load_schema(ENCYCLOPEDIA), Settings(provenance_cap=7))  # documents with a source get it
    assert (caps.cap_for("REPORTED_BY"), caps.types) == (7, frozenset({"REPORTED_BY"}))


def test_the_provenance_flag_does_not_change_what_extractors_see() -> None:
    news = load_schema()
    raw = news.model_dump()
    raw["relation_rules"]["REPORTED_BY"]["provenance"] = "extracted"
    unflagged = GraphSchema.model_validate(raw)
    assert unflagged.inferred_types == frozenset()
    assert unflagged.fingerprint == news.fingerprint  # extraction cache and resume records stay valid
    with pytest.raises(ValueError, match="provenance"):
        GraphSchema.model_validate(
            {**raw, "relation_rules": {**raw["relation_rules"], "CEO_OF": {"provenance": "guessed"}}}
        )
