"""Title entities, generic words and dictionary matching (ingest/entity_layer.py, ingest/linking.py), no services."""

from __future__ import annotations

from collections import Counter

from graphwire.core.documents import Chunk
from graphwire.core.names import title_core, title_qualifier
from graphwire.core.sentences import sentence_of, sentence_starts
from graphwire.ingest.entity_layer import add_title_entities, names_its_document
from graphwire.ingest.linking import Dictionary, find_names
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction


def test_title_core_drops_a_trailing_qualifier_only() -> None:
    assert title_core("In Love and War (1987 film)") == "In Love and War"
    assert title_core("Laie, Hawaii") == "Laie, Hawaii"
    assert title_core("(What's the Story) Morning Glory?") == "(What's the Story) Morning Glory?"
    assert title_qualifier("In Love and War (1987 film)") == "1987 film"
    assert title_qualifier("Laie, Hawaii") == title_qualifier("(What's the Story) Morning Glory?") == ""
    assert title_qualifier("(film)") == ""  # a title that is all qualifier has none


def test_a_title_names_its_document_when_its_words_open_the_body() -> None:
    assert names_its_document("Richard Kuklinski", "Richard Leonard Kuklinski (1935-2006) was a contract killer.")
    assert names_its_document("Laie, Hawaii", "Laie is a census-designated place on the North Shore of Oahu.")
    assert names_its_document("Marrowdale (film)", "Marrowdale is a 1994 drama film directed by Odile Varga.")
    # a headline is not the subject of its article
    assert not names_its_document("Ferry fares rise on northern routes", "Operators said on Tuesday that fares rise.")
    # the words must come in order and near the start
    assert not names_its_document("Varga Odile", "Odile Varga is a director.")
    assert not names_its_document("Skerrin", "A long opening. " * 30 + "Skerrin is a town.")


def _chunk(doc: str, index: int, title: str, body: str) -> Chunk:
    return Chunk(id=f"{doc}-{index}", document_id=doc, index=index, text=body, title=title)


def test_the_title_entity_joins_every_chunk_of_its_document_and_absorbs_the_taggers_mention() -> None:
    chunks = [_chunk("d", 0, "Skerrin", "Skerrin is a town in Kestria."), _chunk("d", 1, "Skerrin", "Skerrin grew.")]
    tagged = [
        Extraction(chunk_id="d-0", entities=[ExtractedEntity(name="Skerrin", label="Location", sentences=[1]),
                                             ExtractedEntity(name="Kestria", label="Location")],
                   relations=[ExtractedRelation(source="Skerrin", source_label="Location", type="LOCATED_IN",
                                                target="Kestria", target_label="Location")]),
        Extraction(chunk_id="d-1", entities=[]),
    ]  # fmt: skip
    assert add_title_entities(chunks, tagged, "Organization") == 1
    first, second = tagged
    assert [(e.name, e.label, e.title) for e in first.entities] == [("Skerrin", "Location", True),
                                                                    ("Kestria", "Location", False)]  # fmt: skip
    assert first.entities[0].sentences == [1]
    assert [(e.name, e.label, e.title) for e in second.entities] == [("Skerrin", "Location", True)]
    # no tagger label in the second document's opening: the fallback label
    other = [_chunk("q", 0, "Qvwm", "Qvwm is a window manager.")]
    untagged = [Extraction(chunk_id="q-0")]
    add_title_entities(other, untagged, "Product")
    assert [(e.name, e.label) for e in untagged[0].entities] == [("Qvwm", "Product")]


def test_generic_words_leave_the_dictionary() -> None:
    entities = [
        {"key": "CreativeWork:lantern series", "name": "Lantern (series)", "aliases": ["Lantern"]},
        {"key": "Location:skerrin", "name": "Skerrin", "aliases": []},
        {"key": "CreativeWork:film", "name": "Film", "aliases": []},
        {"key": "Person:odile varga", "name": "Odile Varga", "aliases": ["Varga"]},
    ]
    lower = Counter({"lantern": 5, "varga": 1})
    upper = Counter({"lantern": 1, "skerrin": 4, "varga": 3})
    dictionary = Dictionary.of(entities).without_generic(lower, upper)
    assert "lantern" not in dictionary.keys  # written in lower case five times as often as capitalised
    assert "film" not in dictionary.keys  # schema/lexicon/generic_words.txt
    assert dictionary.keys["skerrin"] == ["Location:skerrin"]
    assert dictionary.keys["varga"] == ["Person:odile varga"]
    assert dictionary.keys["lantern series"] == ["CreativeWork:lantern series"]  # many words: never generic


def test_find_names_takes_the_longest_match_and_records_its_sentence() -> None:
    dictionary = Dictionary.of([
        {"key": "A", "name": "New Skerrin", "aliases": []},
        {"key": "B", "name": "Skerrin", "aliases": []},
        {"key": "C", "name": "Odile Varga", "aliases": []},
    ])  # fmt: skip
    text = "Skerrin is old. New Skerrin is not! Odile Varga filmed New Skerrin."
    assert find_names(text, dictionary) == {"B": {0}, "A": {1, 2}, "C": {2}}


def test_sentence_indices_agree_between_offsets_and_starts() -> None:
    text = "One. Two? Three!\nFour"
    starts = sentence_starts(text)
    assert [sentence_of(starts, text.index(w)) for w in ("One", "Two", "Three", "Four")] == [0, 1, 2, 3]


def test_find_names_reports_the_names_it_matched_for_each_entity() -> None:
    dictionary = Dictionary.of([{"key": "A", "name": "Odile Varga", "aliases": ["Varga Films", "O. Varga"]}])
    spans: dict[str, set[str]] = {}
    assert find_names("Odile Varga founded Varga Films.", dictionary, spans=spans) == {"A": {0}}
    assert spans == {"A": {"odile varga", "varga films"}}
