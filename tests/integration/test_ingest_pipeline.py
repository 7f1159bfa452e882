"""Offline ingestion into a real Neo4j: schema conformance, provenance, idempotent re-ingest, update, delete, the
Date layer, the Browser queries, and the CLI with malformed records, --limit and --delete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.schemas import news_caps

from graphwire import cypher
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, delete_documents, ingest_articles
from graphwire.ingest.report import IngestReport
from graphwire.ingest.resolve import EntityResolver
from graphwire.ingest.rows import GraphRows
from graphwire.ingest.writer import GraphWriter
from graphwire.schema.model import RESERVED_TYPES, load_schema

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo" / "articles.jsonl"
STAHLWERK_TITLE = "Vantor Dynamics owner Stahlwerk Group weighs sale"


@pytest.fixture(scope="module")
def demo_articles() -> list[Article]:
    return load_articles(DEMO).articles


@pytest.fixture(scope="module")
def gazetteer(demo_articles: list[Article]) -> Gazetteer:
    return Gazetteer.from_sources((a.source for a in demo_articles), schema=load_schema()).with_file(
        DEMO.parent / "gazetteer.yaml"
    )


@pytest.fixture(scope="module")
def extractor(gazetteer: Gazetteer) -> OfflineExtractor:
    return OfflineExtractor(load_schema(), gazetteer)


def run(
    graph: Graph, articles: list[Article], extractor: OfflineExtractor, gazetteer: Gazetteer, **opts: Any
) -> IngestReport:
    options = IngestOptions(progress=False, **{"batch_documents": 8, **opts})
    resolver = EntityResolver(publication_aliases=gazetteer.publication_aliases(), schema=load_schema())
    return ingest_articles(articles, graph, extractor, options=options, resolver=resolver, schema=load_schema())


def facts(graph: Graph) -> set[tuple[str, str, str]]:
    return {(r["source"], r["type"], r["target"]) for r in graph.read("ingest/export_facts")}


def counts(graph: Graph) -> dict[tuple[str, str], int]:
    return {(r["kind"], r["name"]): r["n"] for r in graph.read("browser/05_schema_counts")}


@pytest.fixture(scope="module")
def demo_graph(
    session_graph: Graph, demo_articles: list[Article], extractor: OfflineExtractor, gazetteer: Gazetteer
) -> Iterator[tuple[Graph, IngestReport]]:
    """The demo corpus ingested once, for the tests that only read."""
    session_graph.write("admin/wipe")
    report = run(session_graph, demo_articles, extractor, gazetteer)
    yield session_graph, report
    session_graph.write("admin/wipe")


def test_demo_graph_conforms_to_the_schema_with_full_provenance(
    demo_graph: tuple[Graph, IngestReport], demo_articles: list[Article]
) -> None:
    graph, report = demo_graph
    schema = load_schema()
    assert report.documents_written == len(demo_articles) and not report.failures
    for row in graph.read("browser/09_node_labels"):
        labels = set(row["labels"])
        assert labels in ({"Document"}, {"Chunk"}, {"Date"}, {"StoreVersion"}) or (
            "Entity" in labels and len(labels) == 2 and (labels - {"Entity"}) <= set(schema.labels)
        ), labels
    for row in graph.read("browser/06_schema_patterns"):
        assert schema.allows(row["source"], row["type"], row["target"]), row
    types = {r["type"] for r in graph.read("browser/10_relationship_types")}
    assert types <= set(schema.types) | RESERVED_TYPES
    assert graph.read("browser/08_provenance_check") == [
        {"relationships_without_chunks": 0, "relationships_with_misaligned_evidence": 0,
         "citations_of_missing_chunks": 0, "unsupported_entities": 0}
    ]  # fmt: skip
    expected = {
        ("Person:ada park", "CEO_OF", "Organization:lumen labs"),
        ("Organization:paradigm ventures", "INVESTED_IN", "Organization:lumen labs"),
        ("Organization:stahlwerk group", "OWNS", "Organization:vantor dynamics"),
        ("Person:jonah whitaker", "CHARGED_WITH", "LegalCharge:wire fraud"),
        ("Organization:orbital freight", "REPORTED_BY", "Publication:metro business wire"),
    }
    assert expected <= facts(graph)
    evidence = {(r["source"], r["type"], r["target"]): r["evidence"] for r in graph.read("ingest/export_facts")}
    assert evidence[("Organization:stahlwerk group", "OWNS", "Organization:vantor dynamics")] == [
        "Stahlwerk Group acquired Vantor Dynamics in 2020."
    ]


def test_date_layer_and_publications(demo_graph: tuple[Graph, IngestReport], demo_articles: list[Article]) -> None:
    graph, _ = demo_graph
    days = {a.published_at for a in demo_articles if a.published_at}
    c = counts(graph)
    assert c[("node", "Date")] == len(days)
    consecutive = sum(1 for d in days if d.fromordinal(d.toordinal() + 1) in days)
    assert c[("relationship", "NEXT_DAY")] == consecutive
    chain = [r["date"] for r in graph.read("browser/04_date_chain", date="2026-03-10")]
    assert chain == ["2026-03-09", "2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13"]  # no 03-08: the chain stops
    coverage = graph.read("browser/02_publication_coverage", publication="Harbor Times")
    assert len(coverage) == sum(1 for a in demo_articles if a.source == "Harbor Times")


def test_browser_queries_run(demo_graph: tuple[Graph, IngestReport], demo_articles: list[Article]) -> None:
    graph, _ = demo_graph
    params = {"document_id": demo_articles[0].doc_id, "publication": "Circuit Weekly", "entity": "Ada Park",
              "date": "2026-03-11", "label": "Organization"}  # fmt: skip
    for name in cypher.names():
        if name.startswith("browser/"):
            rows = graph.read(name, **params)
            assert rows or name == "browser/07_duplicate_candidates", name  # the demo has no near-duplicates
    provenance = graph.read("browser/03_entity_provenance", entity="Ada Park")[0]
    assert provenance["key"] == "Person:ada park" and provenance["mentioned_in"]
    assert any(f["fact"] == "CEO_OF" and f["evidence"] for f in provenance["facts"])
    # the useful rows first: facts with an evidence sentence, then without, the REPORTED_BY outlet links last
    ranks = [2 if f["fact"] == "REPORTED_BY" else 0 if any(f["evidence"] or []) else 1 for f in provenance["facts"]]
    assert ranks == sorted(ranks) and ranks[0] == 0


def test_every_demo_question_hop_is_in_the_graph(demo_graph: tuple[Graph, IngestReport]) -> None:
    """data/demo/questions.json lists the facts each demo answer needs; the offline extractor must have written them."""
    graph, _ = demo_graph
    names = {r["key"]: r["name"] for r in graph.read("ingest/existing_entities")}
    written = {f"{names[s]} {t} {names[o]}" for s, t, o in facts(graph)}
    types = set(load_schema().types) - {"REPORTED_BY"}
    questions = json.loads((DEMO.parent / "questions.json").read_text())
    hops = [h for q in questions for h in q["hops"] if any(f" {t} " in h for t in types)]
    assert len(hops) >= 25
    assert [h for h in hops if h not in written] == []


# The tests below change the graph: each starts from an empty one (the `graph` fixture).


def test_reingest_is_idempotent(
    graph: Graph, demo_articles: list[Article], extractor: OfflineExtractor, gazetteer: Gazetteer
) -> None:
    run(graph, demo_articles, extractor, gazetteer)
    before, before_facts = counts(graph), facts(graph)
    forced = run(graph, demo_articles, extractor, gazetteer, force=True)
    assert forced.documents_written == len(demo_articles)
    assert counts(graph) == before and facts(graph) == before_facts
    again = run(graph, demo_articles, extractor, gazetteer)
    assert again.documents_unchanged == len(demo_articles) and again.chunks_written == 0
    assert counts(graph) == before


def test_changed_document_replaces_its_chunks_and_unsupported_facts(
    graph: Graph, demo_articles: list[Article], extractor: OfflineExtractor, gazetteer: Gazetteer
) -> None:
    run(graph, demo_articles, extractor, gazetteer)
    owns = ("Organization:stahlwerk group", "OWNS", "Organization:vantor dynamics")
    assert owns in facts(graph)
    old = next(a for a in demo_articles if a.title == STAHLWERK_TITLE)
    old_chunks = {r["id"] for r in graph.read("ingest/document_chunk_ids", document_id=old.doc_id)}
    changed = old.model_copy(update={"body": "Stahlwerk Group, which is based in Munich, did not comment."})
    report = run(graph, [changed], extractor, gazetteer)
    assert report.documents_updated == 1 and report.chunks_removed == len(old_chunks)
    new_chunks = {r["id"] for r in graph.read("ingest/document_chunk_ids", document_id=old.doc_id)}
    assert new_chunks and not (new_chunks & old_chunks)
    after = facts(graph)
    assert owns not in after
    assert ("Organization:stahlwerk group", "LOCATED_IN", "Location:munich") in after
    assert graph.read("browser/08_provenance_check")[0]["citations_of_missing_chunks"] == 0


def test_delete_removes_what_only_that_document_supported(
    graph: Graph, demo_articles: list[Article], extractor: OfflineExtractor, gazetteer: Gazetteer
) -> None:
    run(graph, demo_articles, extractor, gazetteer)
    before = counts(graph)
    results = delete_documents(graph, [STAHLWERK_TITLE, "no such document"], provenance=news_caps())
    assert [r["found"] for r in results] == [True, False]
    keys = {r["key"] for r in graph.read("ingest/existing_entities")}
    assert "Organization:stahlwerk group" not in keys  # only that article mentioned it
    assert {"Organization:vantor dynamics", "Location:munich", "Publication:ledger daily"} <= keys  # shared
    assert not any("stahlwerk" in s or "stahlwerk" in t for s, _, t in facts(graph))
    after = counts(graph)
    assert after[("node", "Document")] == before[("node", "Document")] - 1
    assert after[("node", "Date")] == before[("node", "Date")] - 1  # nothing else was published on 2026-03-15
    check = graph.read("browser/08_provenance_check")[0]
    assert all(v == 0 for v in check.values())


def test_cli_skips_malformed_records_honours_limit_and_deletes(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    records = [json.loads(line) for line in DEMO.read_text().splitlines()[:3]]
    records.insert(1, {"title": "Broken", "body": "", "source": "Nowhere"})
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(records))
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.neo4j_uri,
        "NEO4J_PASSWORD": neo4j_settings.resolved_neo4j_password(),
        "INGEST_STATE_PATH": str(tmp_path / "state"),
    }
    cli = [sys.executable, "-m", "graphwire.cli.main", "ingest"]
    limited = subprocess.run([*cli, str(corpus), "--no-vectors", "--limit", "2"], env=env, cwd=REPO,
                             capture_output=True, text=True, timeout=240)  # fmt: skip
    assert limited.returncode == 3, limited.stderr + limited.stdout  # 3: a record was skipped, the rest ingested
    assert "corpus.json#1" in limited.stdout and "Broken" in limited.stdout
    assert counts(graph)[("node", "Document")] == 2
    deleted = subprocess.run([*cli, "--no-vectors", "--delete", records[0]["url"]], env=env, cwd=REPO,
                             capture_output=True, text=True, timeout=240)  # fmt: skip
    assert deleted.returncode == 0, deleted.stderr + deleted.stdout
    assert counts(graph)[("node", "Document")] == 1


def test_a_failed_write_stops_the_run_and_commits_only_the_batches_before_it(
    graph: Graph,
    demo_articles: list[Article],
    extractor: OfflineExtractor,
    gazetteer: Gazetteer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Writes run in a writer thread while the next batch is extracted; its errors must still reach the caller."""
    real_write = GraphWriter.write
    calls = 0

    def fail_second_batch(self: GraphWriter, rows: GraphRows) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("disk full")
        real_write(self, rows)

    monkeypatch.setattr(GraphWriter, "write", fail_second_batch)
    with pytest.raises(RuntimeError, match="disk full"):
        run(graph, demo_articles, extractor, gazetteer)
    hashes = graph.read("ingest/document_hashes", ids=[a.doc_id for a in demo_articles])
    assert sorted(h["id"] for h in hashes if h["content_hash"]) == sorted(a.doc_id for a in demo_articles[:8])
    monkeypatch.setattr(GraphWriter, "write", real_write)
    resumed = run(graph, demo_articles, extractor, gazetteer)
    assert resumed.documents_unchanged == 8 and resumed.documents_written == len(demo_articles) - 8
    assert all(v == 0 for v in graph.read("browser/08_provenance_check")[0].values())


def test_a_fact_removed_by_an_update_and_restated_by_a_later_batch_is_written_again(
    graph: Graph, extractor: OfflineExtractor, gazetteer: Gazetteer
) -> None:
    """The run believes the fact exists (it did when the run started); the update removes it while the next batch is
    being prepared; that batch's MERGE must bring it back, citing only the new chunk. The entity only the old version
    mentioned is gone once the run ends."""
    body = "Stahlwerk Group acquired Vantor Dynamics in 2020. Orbital Freight was not involved."
    old = Article(title="Stahlwerk deal", source="Harbor Times", url="https://example.test/deal", body=body)
    changed = old.model_copy(update={"body": "Stahlwerk Group did not comment on Monday."})
    restated = Article(title="Vantor profile", source="Circuit Weekly", url="https://example.test/profile",
                       body="Stahlwerk Group acquired Vantor Dynamics in 2020.")  # fmt: skip
    owns = ("Organization:stahlwerk group", "OWNS", "Organization:vantor dynamics")
    run(graph, [old], extractor, gazetteer)
    assert owns in facts(graph)
    assert "Organization:orbital freight" in {r["key"] for r in graph.read("ingest/existing_entities")}
    report = run(graph, [changed, restated], extractor, gazetteer, batch_documents=1)
    assert report.documents_updated == 1 and report.relationships_removed >= 1
    cited = {(r["source"], r["type"], r["target"]): r["chunk_ids"] for r in graph.read("ingest/export_facts")}
    restated_chunks = {r["id"] for r in graph.read("ingest/document_chunk_ids", document_id=restated.doc_id)}
    assert set(cited[owns]) == restated_chunks
    keys = {r["key"] for r in graph.read("ingest/existing_entities")}
    assert "Organization:orbital freight" not in keys and report.entities_removed >= 1
    assert all(v == 0 for v in graph.read("browser/08_provenance_check")[0].values())
