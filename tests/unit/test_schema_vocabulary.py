"""Domain knowledge is schema data: SCHEMA_PATH switches the extractor's patterns and the retrievers' vocabulary.

The texts here are original, written for this test: an encyclopedia-style article about fictional people and works.
Entities come from a test gazetteer so the assertions pin the schema's patterns, not spaCy's NER guesses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from graphwire.core.schema import configured_schema
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings, get_settings
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.extractors.patterns import compile_patterns
from graphwire.ingest.gazetteer import Gazetteer, KnownEntity
from graphwire.retrieval.answer.extractive import ExtractiveAnswerer, asked_label
from graphwire.retrieval.graph.relations import asked_relations
from graphwire.retrieval.question import OutletGazetteer
from graphwire.retrieval.registry import build_answerer
from graphwire.schema.model import GraphSchema, bundled_schema_paths, default_schema_path, load_schema

ROOT = Path(__file__).resolve().parents[2]
ENCYCLOPEDIA = ROOT / "schema" / "encyclopedia.yaml"
NEWS = default_schema_path()

ARTICLE = (
    "Orla Merrin.\n"
    "Orla Merrin (born 12 March 1948) is an Irish film director and screenwriter. "
    "Orla Merrin was born in Ballycastle. "
    "Orla Merrin directed The Salt Lantern in 1979. "
    "Tidewater Hymn is a 1984 drama film directed by Orla Merrin and starring Cian Doyle. "
    "Orla Merrin married Cian Doyle in 1981. "
    "Ballycastle is a town in County Antrim. "
    "Orla Merrin died in Lisbon in 2011."
)
KNOWN = {
    "Person": ["Orla Merrin", "Cian Doyle"],
    "CreativeWork": ["The Salt Lantern", "Tidewater Hymn"],
    "Location": ["Ballycastle", "County Antrim", "Lisbon"],
    "Nationality": ["Irish"],
}
EXPECTED = {
    ("Orla Merrin", "CITIZEN_OF", "Irish"),
    ("Orla Merrin", "BORN_IN", "Ballycastle"),
    ("Orla Merrin", "DIRECTED", "The Salt Lantern"),
    ("Orla Merrin", "DIRECTED", "Tidewater Hymn"),
    ("Cian Doyle", "STARRED_IN", "Tidewater Hymn"),
    ("Orla Merrin", "SPOUSE_OF", "Cian Doyle"),
    ("Ballycastle", "LOCATED_IN", "County Antrim"),
    ("Orla Merrin", "DIED_IN", "Lisbon"),
}


def _extractor(schema: GraphSchema) -> OfflineExtractor:
    known = [
        KnownEntity(name=n, label=label) for label, names in KNOWN.items() for n in names if label in schema.labels
    ]
    gazetteer = Gazetteer.from_sources([], schema=schema).model_copy(update={"known": known})
    return OfflineExtractor(schema, gazetteer)


def _triples(extractor: OfflineExtractor, text: str) -> set[tuple[str, str, str]]:
    return {(r.source, r.type, r.target) for r in extractor.extract_text(text).relations}


@pytest.fixture
def schema_path_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Set SCHEMA_PATH the way a deployment does (environment), with the settings cache cleared around it."""

    def use(path: Path) -> None:
        monkeypatch.setenv("SCHEMA_PATH", str(path))
        get_settings.cache_clear()

    yield use
    monkeypatch.delenv("SCHEMA_PATH", raising=False)
    get_settings.cache_clear()


@pytest.mark.parametrize("path", bundled_schema_paths(), ids=lambda p: p.name)
def test_bundled_schemas_load_and_every_type_is_described(path: Path) -> None:
    schema = load_schema(path)
    assert all(schema.relationship_types.values()) and all(schema.node_labels.values())
    assert compile_patterns(schema), "a bundled schema brings its own surface patterns"
    assert set(schema.relation_cues) <= set(schema.types)


def test_a_bundled_schema_is_found_from_any_working_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_schema(Path("schema/encyclopedia.yaml")).name == "encyclopedia"
    assert load_schema(Path("encyclopedia.yaml")).name == "encyclopedia"
    with pytest.raises(ValueError, match="cannot read schema file"):
        load_schema(Path("schema/no-such-domain.yaml"))


def test_the_encyclopedia_schema_is_a_real_second_domain() -> None:
    schema = load_schema(ENCYCLOPEDIA)
    assert {"Person", "Organization", "CreativeWork", "Location", "Event", "Product"} <= set(schema.labels)
    assert len(schema.labels) <= 9
    wanted = {"BORN_IN", "DIED_IN", "SPOUSE_OF", "PARENT_OF", "DIRECTED", "CREATED", "STARRED_IN", "CITIZEN_OF"}
    assert wanted | {"LOCATED_IN", "MEMBER_OF", "FOUNDED", "PART_OF"} <= set(schema.types)
    assert all(schema.relation_rules[t].surface_patterns and schema.relation_rules[t].cues for t in schema.types)
    assert schema.allows("Person", "BORN_IN", "Location") and not schema.allows("Location", "BORN_IN", "Person")
    assert schema.gazetteer_data.question_outlets == []  # no news outlets in an encyclopedia


def test_encyclopedia_schema_extracts_its_relations() -> None:
    assert _triples(_extractor(load_schema(ENCYCLOPEDIA)), ARTICLE) == EXPECTED


def test_the_same_text_under_the_news_schema_has_none_of_them() -> None:
    found = _triples(_extractor(load_schema(NEWS)), ARTICLE)
    assert not {t for _, t, _ in found} & {t for _, t, _ in EXPECTED} - {"LOCATED_IN"}


def test_encyclopedia_patterns_hold_back_on_near_misses() -> None:
    extractor = _extractor(load_schema(ENCYCLOPEDIA))
    assert _triples(extractor, "Orla Merrin visited Ballycastle. Cian Doyle met Orla Merrin in Lisbon.") == set()
    # a nationality only when the description goes on to say what the person is
    assert _triples(extractor, "Cian Doyle is an Irish resident of Lisbon.") == set()
    # "starring A and B" lists two actors, it does not make them works
    assert _triples(extractor, "Tidewater Hymn, starring Cian Doyle and Orla Merrin, opened.") == {
        ("Cian Doyle", "STARRED_IN", "Tidewater Hymn"),
        ("Orla Merrin", "STARRED_IN", "Tidewater Hymn"),
    }


def test_schema_path_switches_extractor_and_retriever_vocabulary(schema_path_env: Any, tmp_path: Path) -> None:
    question = "Who directed the film that starred Cian Doyle?"
    schema = configured_schema(get_settings())  # what a surface reads and hands to the components it builds
    assert schema.name == "news"
    assert asked_relations(question, schema) == {}  # news has no DIRECTED, and "starred" asks nothing there
    assert asked_label("Which film did Orla Merrin direct?", schema) is None
    assert OutletGazetteer([], schema=schema).find("Did Reuters report it?")[0].name == "Reuters"
    assert "CEO_OF" in {p.type for p in OfflineExtractor(schema, allowed_labels=["Person"]).patterns}

    schema_path_env(ENCYCLOPEDIA)  # no code change: only the setting
    schema = configured_schema(get_settings())
    assert schema.name == "encyclopedia"
    assert asked_relations(question, schema) == {"DIRECTED": 1, "STARRED_IN": 1}
    assert asked_relations("Where was Orla Merrin born?", schema) == {"BORN_IN": 1}
    assert asked_label("Which film did Orla Merrin direct?", schema) == "CreativeWork"
    assert asked_label("What nationality is Cian Doyle?", schema) == "Nationality"
    assert OutletGazetteer([], schema=schema).find("Did Reuters report it?") == []  # no outlet list in this domain
    extractor = OfflineExtractor(schema)
    types = {p.type for p in extractor.patterns}
    assert {"BORN_IN", "DIRECTED"} <= types and "CEO_OF" not in types
    answerer = build_answerer("extractive", Settings(_env_file=None))  # type: ignore[call-arg]
    assert isinstance(answerer, ExtractiveAnswerer) and answerer.schema.name == "encyclopedia"


def test_the_graph_retriever_reads_the_cue_words_of_its_settings_schema() -> None:
    from graphwire.retrieval.graph.retriever import GraphRetriever

    settings = Settings(_env_file=None, schema_path=ENCYCLOPEDIA)  # type: ignore[call-arg]
    retriever = GraphRetriever.from_settings(object(), settings)  # type: ignore[arg-type]  # no query is run
    assert retriever.schema.name == "encyclopedia"
    assert asked_relations("Who directed Tidewater Hymn?", retriever.schema) == {"DIRECTED": 1}


@pytest.mark.parametrize(
    ("raw_change", "message"),
    [
        ({"extraction": {"macros": {}}}, "unknown macro"),
        ({"relation_rules": {"BORN_IN": {"cues": ["(unclosed"]}}}, "invalid regex"),
        ({"label_rules": {"Person": {"relabel_from": ["Film"]}}}, "not in node_labels"),
    ],
)
def test_a_bad_schema_fails_with_the_reason(raw_change: dict[str, Any], message: str) -> None:
    raw = load_schema(ENCYCLOPEDIA).model_dump()
    for key, value in raw_change.items():
        if key == "extraction":
            raw[key] = {**raw[key], **value}
        else:
            for name, rules in value.items():
                raw[key][name] = {**raw[key][name], **rules}
    with pytest.raises(ValueError, match=message):
        GraphSchema.model_validate(raw)


def test_the_entities_endpoint_checks_labels_against_the_configured_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphwire.app import graph_access
    from graphwire.app.deps import get_graph
    from graphwire.app.main import create_app

    monkeypatch.setattr(graph_access, "lookup_entities", lambda graph, q, limit, label, scope: [])
    fixture_schema = ROOT / "tests" / "data" / "encyclopedia" / "schema.yaml"  # labels Film, Book, Place, ...
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",  # nothing listens: no Neo4j of the environment (CI's) is reached
        neo4j_password="unused",
        neo4j_apply_schema_on_start=False,
        chroma_path=tmp_path / "chroma",
        schema_path=fixture_schema,
    )
    app = create_app(settings)
    app.dependency_overrides[get_graph] = lambda: object()
    with TestClient(app) as client:
        assert client.get("/v1/entities", params={"q": "x", "label": "Film"}).status_code == 200
        refused = client.get("/v1/entities", params={"q": "x", "label": "Publication"})
        assert refused.status_code == 422 and "Film" in refused.json()["error"]["details"]["labels"]


def test_the_words_that_ask_for_a_label_are_not_part_of_the_extraction_fingerprint() -> None:
    schema = load_schema()
    rules = dict(schema.label_rules)
    person = rules["Person"]
    rules["Person"] = person.model_copy(update={"question_words": [*person.question_words, "protagonist"]})
    asked = schema.model_copy(update={"label_rules": rules})
    assert asked.label_rules["Person"].question_words[-1] == "protagonist"
    assert asked.fingerprint == schema.fingerprint  # the answerer's words: extractions stay cached
    described = dict(schema.node_labels) | {"Person": "A human being."}
    assert schema.model_copy(update={"node_labels": described}).fingerprint != schema.fingerprint
