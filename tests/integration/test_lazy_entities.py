"""Lazy entity loads: a run into a graph that has entities reads only those its names can resolve to or link, and
builds the same store as a run that reads every entity first; stores written before the lookup properties existed
are migrated once."""

from __future__ import annotations

import pytest
from support.crash import corpus_v1, export_graph, extractor, gazetteer

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.ingest.entity_lookup import LOOKUP_FORMAT, StoredEntities, lookup_properties, migrate
from graphwire.ingest.linking import DictionaryLinker
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.ingest.report import IngestReport
from graphwire.ingest.resolve import EntityResolver
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
FIRST = 8  # documents of the first run; the second run adds the rest
FILLER = 20_000  # entities no text names, so that the graph has more entities than the second run has word spans


def _ingest(graph: Graph, articles: list[Article], resolver: EntityResolver | None = None) -> IngestReport:
    resolver = resolver or EntityResolver(publication_aliases=gazetteer().publication_aliases(), schema=load_schema())
    options = IngestOptions(progress=False, batch_documents=2)
    return ingest_articles(articles, graph, extractor(), options=options, resolver=resolver, schema=load_schema())


def _first_run(graph: Graph) -> None:
    _ingest(graph, corpus_v1()[:FIRST])
    rows = []
    for i in range(FILLER):
        name = f"Quillon Registry {i:05d}"
        norm = name.lower()
        lookup = lookup_properties("Organization", name, norm, [name], load_schema().roles)
        rows.append({"key": f"Organization:{norm}", "label": "Organization", "name": name, "norm": norm,
                     "aliases": [name], **lookup})  # fmt: skip
    graph.write_batches("ingest/merge_entities", rows, 5000)


def _entity_count(graph: Graph) -> int:
    return StoredEntities(graph).count()


def test_a_second_run_reads_only_what_it_names_and_builds_what_an_eager_run_builds(
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    articles = corpus_v1()
    _first_run(graph)
    stored = _entity_count(graph)
    lazy = _ingest(graph, articles[FIRST:])
    lazy_store = export_graph(graph)
    assert 0 < lazy.entities_read < 200 < FILLER < stored, (lazy.entities_read, stored)

    graph.write("admin/wipe")
    _first_run(graph)
    eager = EntityResolver(publication_aliases=gazetteer().publication_aliases(), schema=load_schema())
    eager.load(graph.read("ingest/existing_entities"))  # what every run did before: read every entity
    monkeypatch.setattr(DictionaryLinker, "_entities", lambda self, tokens: self.stored.all())
    _ingest(graph, articles[FIRST:], eager)
    assert export_graph(graph) == lazy_store


def test_names_resolve_across_runs_by_alias_and_fuzzy_match_through_the_lookup(graph: Graph) -> None:
    resolver = EntityResolver(source=StoredEntities(graph), schema=load_schema())
    first = EntityResolver(schema=load_schema())
    lumen = first.resolve("Lumen Laboratories", "Organization")
    assert lumen is not None
    first.add_alias(lumen, "Lumen Labs")
    lookup = lookup_properties(lumen.label, lumen.name, lumen.norm, lumen.aliases, load_schema().roles)
    row = {"key": lumen.key, "label": lumen.label, "name": lumen.name, "norm": lumen.norm, "aliases": lumen.aliases}
    graph.write("ingest/merge_entities", rows=[{**row, **lookup}])
    resolver.prefetch([("Lumen Labs", "Organization"), ("Lumen Laborratories", "Organization"), ("Ada", "Person")])
    assert resolver.stored == {lumen.key}
    by_alias = resolver.resolve("Lumen Labs", "Organization")
    by_typo = resolver.resolve("Lumen Laborratories", "Organization")
    assert by_alias is not None and by_typo is not None
    assert by_alias.key == by_typo.key == lumen.key


def test_a_store_without_lookup_properties_is_migrated_once(graph: Graph) -> None:
    articles = corpus_v1()
    _ingest(graph, articles[:FIRST])
    graph.write("fixture/strip_entity_lookup")  # as an older graphwire left it
    assert migrate(graph, load_schema().roles) == _entity_count(graph)
    assert graph.read("ingest/lookup_format")[0]["format"] == LOOKUP_FORMAT
    assert migrate(graph, load_schema().roles) == 0
    migrated = export_graph(graph)
    graph.write("admin/wipe")
    _ingest(graph, articles[:FIRST])
    assert export_graph(graph) == migrated  # the same properties a fresh ingest writes
