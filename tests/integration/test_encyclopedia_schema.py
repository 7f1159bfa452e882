"""The bundled encyclopedia schema end to end: ingest a small original encyclopedia-style corpus with it, then answer
a two-hop question with the graph retriever and the extractive answerer built from settings naming that schema.

Nothing in the code names the encyclopedia domain: the patterns, cue words and label words all come from
schema/encyclopedia.yaml. Known entities come from a test gazetteer so the test does not depend on NER guesses.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer, KnownEntity
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.retrieval.graph import GraphRetriever
from graphwire.retrieval.registry import build_answerer
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
ENCYCLOPEDIA = Path(__file__).resolve().parents[2] / "schema" / "encyclopedia.yaml"

ARTICLES = {
    "Orla Merrin": "Orla Merrin (born 12 March 1948) is an Irish film director and screenwriter. Orla Merrin was "
    "born in Ballycastle. Orla Merrin married Cian Doyle in 1981.",
    "Tidewater Hymn": "Tidewater Hymn is a 1984 drama film directed by Orla Merrin and starring Cian Doyle. The "
    "film was shot on the north coast over one winter.",
    "Ballycastle": "Ballycastle is a town in County Antrim. Ballycastle holds a harbour festival every summer.",
    "Cian Doyle": "Cian Doyle (born 2 May 1950) is an Irish actor. Cian Doyle was born in Lisbon.",
}
KNOWN = {
    "Person": ["Orla Merrin", "Cian Doyle"],
    "CreativeWork": ["Tidewater Hymn"],
    "Location": ["Ballycastle", "County Antrim", "Lisbon"],
}


@pytest.fixture(scope="module")
def encyclopedia_graph(session_graph: Graph) -> Iterator[Graph]:
    schema = load_schema(ENCYCLOPEDIA)
    known = [KnownEntity(name=n, label=label) for label, names in KNOWN.items() for n in names]
    gazetteer = Gazetteer.from_sources([], schema=schema).model_copy(update={"known": known})
    articles = [Article(title=title, body=body) for title, body in ARTICLES.items()]
    session_graph.write("admin/wipe")
    ingest_articles(
        articles,
        session_graph,
        OfflineExtractor(schema, gazetteer),
        schema=schema,
        options=IngestOptions(progress=False),
    )
    yield session_graph
    session_graph.write("admin/wipe")


def test_encyclopedia_corpus_gets_typed_facts_and_a_two_hop_answer(
    encyclopedia_graph: Graph, neo4j_settings: Settings
) -> None:
    facts = {(r["source"], r["type"], r["target"]) for r in encyclopedia_graph.read("ingest/export_facts")}
    assert {
        ("Person:orla merrin", "BORN_IN", "Location:ballycastle"),
        ("Person:orla merrin", "DIRECTED", "CreativeWork:tidewater hymn"),
        ("Person:cian doyle", "STARRED_IN", "CreativeWork:tidewater hymn"),
        ("Person:orla merrin", "SPOUSE_OF", "Person:cian doyle"),
        ("Location:ballycastle", "LOCATED_IN", "Location:county antrim"),
        ("Person:cian doyle", "BORN_IN", "Location:lisbon"),
    } <= facts
    settings = neo4j_settings.model_copy(update={"schema_path": ENCYCLOPEDIA})
    retriever = GraphRetriever.from_settings(encyclopedia_graph, settings)
    answerer = build_answerer("extractive", settings)
    question = "Where was the director of Tidewater Hymn born?"
    assert answerer.answer(question, retriever.retrieve(question)).text == "Ballycastle"
    question = "Who starred in Tidewater Hymn?"
    assert answerer.answer(question, retriever.retrieve(question)).text == "Cian Doyle"
