"""Curation rules against real Neo4j: what a person decided (a merge, a deleted fact or entity, an added fact, a
split) holds when the same documents are ingested again and when new ones come; undo takes the rule away; `db check`
reports a rule that no longer applies; a split's bad input is refused with nothing changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.chains import GoldExtractor, chain_records
from test_curation import BRIGHTCELL, KESTREL, OSLO, REPO, export
from test_curation import chains as chains  # noqa: F401  (fixtures)
from test_curation import curation as curation  # noqa: F401
from test_curation import settings as settings  # noqa: F401

from graphwire import Graphwire
from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.consistency import check_store, repair_store
from graphwire.ingest.curation.models import (
    AddFact,
    DeleteEntity,
    DeleteFact,
    EditError,
    EditRequest,
    EditSpec,
    Merge,
    Relabel,
    Split,
)
from graphwire.ingest.curation.service import Curation
from graphwire.ingest.pipeline import IngestOptions, delete_document, ingest_articles
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
VARGA, HYPER = "Person:ilse varga", "Organization:hyperscalers group"
HYPER_TITLE = "Hyperscalers Group opens a data centre in Oslo"
OSLO_MN = "Location:oslo minnesota"


def _record(title: str, body: str, entities: list[tuple[str, str]], relations: list[tuple[str, ...]]) -> dict[str, Any]:
    rels = [{"source": s, "source_label": sl, "type": t, "target": o, "target_label": ol, "evidence": body}
            for s, sl, t, o, ol in relations]  # fmt: skip
    named = [{"name": n, "label": label, "aliases": []} for n, label in entities]
    return {"title": title, "source": "The Harbor Ledger", "published_at": "2024-05-01", "body": body,
            "entities": named, "relations": rels}  # fmt: skip


IV_DOC = _record("IV steers Kestrel Motors", "IV runs Kestrel Motors.", [("IV", "Person"), ("Kestrel Motors",
                 "Organization")], [("IV", "Person", "CEO_OF", "Kestrel Motors", "Organization")])  # fmt: skip
IV_NEW = _record("IV opens a plant", "IV said Kestrel Motors opens a plant.", [("IV", "Person"), ("Kestrel Motors",
                 "Organization")], [("IV", "Person", "CEO_OF", "Kestrel Motors", "Organization")])  # fmt: skip
BRIGHTCELL_NEW = _record("Brightcell hires in Oslo", "Brightcell Energy, of Oslo, hires 200 engineers.",
                         [("Brightcell Energy", "Organization"), ("Oslo", "Location")],
                         [("Brightcell Energy", "Organization", "LOCATED_IN", "Oslo", "Location")])  # fmt: skip


def _ingest(graph: Graph, *extra: dict[str, Any]) -> None:
    """The chains corpus and `extra` records again through the real pipeline (forced: every document re-extracted)."""
    records = [*chain_records(), *extra]
    fields = set(Article.model_fields)
    articles = [Article.model_validate({k: v for k, v in r.items() if k in fields}) for r in records]
    report = ingest_articles(articles, graph, GoldExtractor(records), schema=load_schema(),
                             options=IngestOptions(progress=False, force=True))  # fmt: skip
    assert not report.failures, report.failures


def _env(settings: Settings) -> dict[str, str]:
    """The environment of a `graphwire` subprocess on the test's store."""
    return {**os.environ, "PYTHONPATH": str(REPO), "NEO4J_URI": settings.neo4j_uri, "COLUMNS": "200",
            "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
            "STORE_LOCK_DIR": str(settings.store_lock_dir)}  # fmt: skip


def _apply(curation: Curation, edit: EditSpec) -> str:
    result = curation.apply(EditRequest(edit=edit, by="tester", reason="test"))
    assert result.record is not None
    return result.record.id


def _entities(graph: Graph, *keys: str) -> list[str]:
    return [r["key"] for r in graph.read("curation/entities", keys=list(keys))]


def _facts(graph: Graph) -> set[tuple[str, str, str]]:
    return {(r["source"], r["type"], r["target"]) for r in graph.read("ingest/export_facts")}


def _rules(graph: Graph) -> list[dict[str, Any]]:
    return [r["rule"] for r in graph.read("curation/rules")]


def _clean(graph: Graph, settings: Settings) -> None:
    found = check_store(graph, None, ProvenanceCaps.of(load_schema(), settings))
    assert found.ok, (found.problems(), found.stale_rules)


def _mentioned_in(graph: Graph, key: str) -> set[str]:
    return {r["start_id"] for r in graph.read("curation/relationships", keys=[key]) if r["type"] == "MENTIONS"}


def _document_chunks(graph: Graph, title: str) -> set[str]:
    document_id = graph.read("ingest/find_documents", ref=title)[0]["id"]
    return {r["id"] for r in graph.read("ingest/document_chunk_ids", document_id=document_id)}


def test_a_merge_holds_when_the_same_and_new_documents_are_ingested(
    chains: Graph, curation: Curation, settings: Settings
) -> None:
    _ingest(chains, IV_DOC)
    assert _entities(chains, "Person:iv") == ["Person:iv"]
    _apply(curation, Merge(survivor=VARGA, merged="Person:iv"))
    # "IV" alone is not a lookup key of a full person name (a lone word must not mean Ilse Varga everywhere): only the
    # merge's rule keeps it from coming back
    _ingest(chains, IV_DOC)
    assert _entities(chains, "Person:iv") == []
    _ingest(chains, IV_DOC, IV_NEW)
    assert _entities(chains, "Person:iv", VARGA) == [VARGA]
    ceo = [r for r in chains.read("curation/relationships", keys=[VARGA]) if r["type"] == "CEO_OF"]
    assert len(ceo) == 1 and _document_chunks(chains, IV_NEW["title"]) <= set(ceo[0]["props"]["chunk_ids"])
    _clean(chains, settings)


def test_a_relabel_holds_when_the_documents_are_ingested_again(chains: Graph, curation: Curation) -> None:
    product, work = "Product:kestrel k2", "CreativeWork:kestrel k2"
    mentioned = _mentioned_in(chains, product)
    _apply(curation, Relabel(key=product, label="CreativeWork"))
    _ingest(chains)  # the extractor still says Product: the rule sends the name to the relabelled entity
    assert _entities(chains, product, work) == [work]
    assert _mentioned_in(chains, work) == mentioned and (KESTREL, "PRODUCED", work) in _facts(chains)


def test_deleted_facts_and_entities_stay_deleted_and_undo_takes_the_rule_away(
    chains: Graph, curation: Curation, settings: Settings
) -> None:
    fact = (BRIGHTCELL, "LOCATED_IN", OSLO)
    deleted_fact = _apply(curation, DeleteFact(source=BRIGHTCELL, type="LOCATED_IN", target=OSLO))
    deleted_entity = _apply(curation, DeleteEntity(key=HYPER))
    _ingest(chains, BRIGHTCELL_NEW)  # the same documents again, and a new one stating the deleted fact
    assert fact not in _facts(chains)
    assert _entities(chains, HYPER) == [] and _entities(chains, OSLO) == [OSLO]
    assert _mentioned_in(chains, OSLO) & _document_chunks(chains, HYPER_TITLE)  # the rest of its document stays
    _clean(chains, settings)
    assert {r["kind"] for r in _rules(chains)} == {"deny-fact", "deny-entity"}

    # the ingest touched Oslo since; undo of the delete-fact is refused, so the rules go by undoing other edits
    with pytest.raises(EditError, match="changed since"):
        curation.undo(deleted_fact, by="tester")
    curation.undo(deleted_entity, by="tester")
    assert [r["kind"] for r in _rules(chains)] == ["deny-fact"]


def test_an_undone_delete_fact_leaves_no_rule(chains: Graph, curation: Curation) -> None:
    edit_id = _apply(curation, DeleteFact(source=BRIGHTCELL, type="LOCATED_IN", target=OSLO))
    assert [r["edit_id"] for r in _rules(chains)] == [edit_id]
    curation.undo(edit_id, by="tester")
    assert _rules(chains) == []
    _ingest(chains)
    assert (BRIGHTCELL, "LOCATED_IN", OSLO) in _facts(chains)


def test_an_added_fact_comes_back_with_its_document(chains: Graph, curation: Curation, settings: Settings) -> None:
    chunk_id = next(iter(_document_chunks(chains, HYPER_TITLE)))
    _apply(curation, AddFact(source=HYPER, type="LOCATED_IN", target="Location:antofagasta", chunk_id=chunk_id,
                             evidence="Hyperscalers Group also runs a site in Antofagasta."))  # fmt: skip
    caps = ProvenanceCaps.of(load_schema(), settings)
    document_id = chains.read("ingest/find_documents", ref=HYPER_TITLE)[0]["id"]
    assert delete_document(chains, document_id, provenance=caps) is not None
    assert _entities(chains, HYPER) == []  # the fact went with its chunk, and Hyperscalers with its only document
    _ingest(chains)
    fact = [r for r in chains.read("curation/relationships", keys=[HYPER]) if r["type"] == "LOCATED_IN"
            and r["end_id"] == "Location:antofagasta"]  # fmt: skip
    assert len(fact) == 1 and fact[0]["props"]["chunk_ids"] == [chunk_id]
    assert fact[0]["props"]["evidence"] == ["Hyperscalers Group also runs a site in Antofagasta."]
    _clean(chains, settings)


def test_a_split_holds_across_reingest_and_undo_restores(chains: Graph, curation: Curation, settings: Settings) -> None:
    before = export(chains)
    hyper_doc = chains.read("ingest/find_documents", ref=HYPER_TITLE)[0]["id"]
    split = Split(key=OSLO, name="Oslo Minnesota", documents=[hyper_doc])
    preview = curation.preview(EditRequest(edit=split, by="ana"))
    assert preview.change.entities_added == [OSLO_MN] and preview.change.entities_changed == []
    assert f"{HYPER} -LOCATED_IN-> {OSLO}" in preview.change.relationships_removed
    assert f"{HYPER} -LOCATED_IN-> {OSLO_MN}" in preview.change.relationships_added
    assert export(chains) == before
    edit_id = _apply(curation, split)
    hyper_chunks = _document_chunks(chains, HYPER_TITLE)
    assert _mentioned_in(chains, OSLO_MN) == hyper_chunks and not _mentioned_in(chains, OSLO) & hyper_chunks
    _clean(chains, settings)

    _ingest(chains, BRIGHTCELL_NEW)  # extracted again, and linked by name again: still two entities
    assert _mentioned_in(chains, OSLO_MN) == hyper_chunks and not _mentioned_in(chains, OSLO) & hyper_chunks
    assert _mentioned_in(chains, OSLO) & _document_chunks(chains, BRIGHTCELL_NEW["title"])  # new documents: Oslo
    facts = _facts(chains)
    assert (HYPER, "LOCATED_IN", OSLO_MN) in facts and (HYPER, "LOCATED_IN", OSLO) not in facts
    assert (BRIGHTCELL, "LOCATED_IN", OSLO) in facts
    _clean(chains, settings)
    with pytest.raises(EditError, match="changed since"):
        curation.undo(edit_id, by="tester")  # the ingest touched both entities


def test_a_split_comes_back_with_its_deleted_document(chains: Graph, curation: Curation, settings: Settings) -> None:
    hyper_doc = chains.read("ingest/find_documents", ref=HYPER_TITLE)[0]["id"]
    _apply(curation, Split(key=OSLO, name="Oslo Minnesota", documents=[hyper_doc]))
    assert delete_document(chains, hyper_doc, provenance=ProvenanceCaps.of(load_schema(), settings)) is not None
    assert _entities(chains, OSLO_MN) == []  # nothing mentions it any more: swept with its only document
    _clean(chains, settings)  # the rule still applies: it names the entity to write again
    _ingest(chains)
    assert _mentioned_in(chains, OSLO_MN) == _document_chunks(chains, HYPER_TITLE)
    assert chains.read("curation/entities", keys=[OSLO_MN])[0]["props"]["name"] == "Oslo Minnesota"
    assert (HYPER, "LOCATED_IN", OSLO_MN) in _facts(chains) and (HYPER, "LOCATED_IN", OSLO) not in _facts(chains)
    _clean(chains, settings)


def test_split_undo_is_exact_and_removes_the_rule(chains: Graph, curation: Curation) -> None:
    before = export(chains)
    chunk = next(iter(_document_chunks(chains, HYPER_TITLE)))
    edit_id = _apply(curation, Split(key=OSLO, name="Oslo Minnesota", chunks=[chunk]))
    [rule] = _rules(chains)
    assert (rule["kind"], rule["keys"], rule["target"], rule["chunks"]) == ("split", [OSLO], OSLO_MN, [chunk])
    curation.undo(edit_id, by="tester")
    assert export(chains) == before and _rules(chains) == []


def test_db_check_reports_a_rule_that_no_longer_applies(
    chains: Graph, curation: Curation, settings: Settings, tmp_path: Path
) -> None:
    caps = ProvenanceCaps.of(load_schema(), settings)
    edit_id = _apply(curation, DeleteFact(source=BRIGHTCELL, type="LOCATED_IN", target=OSLO))
    _clean(chains, settings)
    _apply(curation, DeleteEntity(key=BRIGHTCELL))  # the deleted fact's rule now names an entity that is gone
    found = check_store(chains, None, caps)
    assert found.problems() == {"curation rules that no longer apply (undo their edit, or --repair drops them)": 1}
    [stale] = found.stale_rules
    assert stale.startswith(f"deny-fact {BRIGHTCELL} -LOCATED_IN-> {OSLO} (edit {edit_id})") and "no longer" in stale
    command = [sys.executable, "-m", "graphwire.cli.main", "db", "check", "--no-vectors"]
    cli = subprocess.run(command, env=_env(settings), cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert cli.returncode == 1 and "1 curation rules that no longer apply" in cli.stdout, cli.stdout + cli.stderr
    assert f"(edit {edit_id}): '{BRIGHTCELL}' no longer exists" in cli.stdout
    assert repair_store(chains, None, found, caps, load_schema().roles).rules_dropped == 1
    _clean(chains, settings)
    assert [r["kind"] for r in _rules(chains)] == ["deny-entity"]


@pytest.mark.parametrize(
    ("split", "status", "message"),
    [
        (Split(key=OSLO, name="Oslo Minnesota"), 422, "needs the documents or chunks"),
        (Split(key=OSLO, name="Oslo Minnesota", documents=["no-such-document"]), 404, "no document 'no-such-document'"),
        (Split(key=OSLO, name="Oslo Minnesota", chunks=["no-such-chunk"]), 404, "no chunk 'no-such-chunk'"),
        (Split(key="Location:atlantis", name="Atlantis II", chunks=[]), 404, "no entity"),
        (Split(key=OSLO, name="OSLO", documents=["@hyper"]), 422, "a name of its own"),
        (Split(key=OSLO, name="!!", documents=["@hyper"]), 422, "normalises to nothing"),
        (Split(key=OSLO, name="Oslo Minnesota", documents=["@lumen"]), 422, "none of the chosen chunks"),
        (Split(key=KESTREL, name="Kestrel Two", documents=["@all"]), 422, "rename it instead"),
    ],
)
def test_bad_splits_change_nothing(chains: Graph, curation: Curation, split: Split, status: int, message: str) -> None:
    titles = {"@hyper": [HYPER_TITLE], "@lumen": ["Lumen Labs names former regulator Mara Ellison to its board"],
              "@all": [r["title"] for r in chain_records()]}  # fmt: skip
    documents = [d["id"] for ref in split.documents for t in titles.get(ref, [ref])
                 for d in chains.read("ingest/find_documents", ref=t)] or split.documents  # fmt: skip
    split = split.model_copy(update={"documents": documents})
    before = export(chains)
    with pytest.raises(EditError, match=message) as refused:
        curation.apply(EditRequest(edit=split, by="tester"))
    assert refused.value.status == status
    assert export(chains) == before and curation.log() == [] and _rules(chains) == []


def test_split_over_http_cli_and_python(chains: Graph, settings: Settings, tmp_path: Path) -> None:
    before = export(chains)
    hyper_doc = chains.read("ingest/find_documents", ref=HYPER_TITLE)[0]["id"]
    body = {"edit": {"kind": "split", "key": OSLO, "name": "Oslo Minnesota", "documents": [hyper_doc]}, "by": "ana"}
    with TestClient(create_app(settings)) as client:
        bad = client.post("/v1/graph/edits", json={**body, "edit": {**body["edit"], "documents": ["nope"]}})
        assert bad.status_code == 404 and "no document 'nope'" in bad.json()["error"]["message"]
        dry = client.post("/v1/graph/edits", params={"dry_run": True}, json=body)
        assert dry.status_code == 200 and dry.json()["change"]["entities_added"] == [OSLO_MN]
        assert export(chains) == before
        applied = client.post("/v1/graph/edits", json=body)
        assert applied.status_code == 200, applied.text
        edit_id = applied.json()["record"]["id"]
    env = _env(settings)
    undone = subprocess.run([sys.executable, "-m", "graphwire.cli.main", "edit", "undo", edit_id], env=env,
                            cwd=tmp_path, capture_output=True, text=True, timeout=240)  # fmt: skip
    assert undone.returncode == 0, undone.stderr
    assert export(chains) == before and _rules(chains) == []
    cli = subprocess.run([sys.executable, "-m", "graphwire.cli.main", "edit", "split", OSLO, "Oslo Minnesota",
                          "--document", hyper_doc, "--dry-run"], env=env, cwd=tmp_path, capture_output=True,
                         text=True, timeout=240)  # fmt: skip
    assert cli.returncode == 0 and "dry run" in cli.stdout and OSLO_MN in cli.stdout, cli.stderr
    with Graphwire(settings) as gw:
        done = gw.edit(Split(key=OSLO, name="Oslo Minnesota", documents=[hyper_doc]), by="ana")
        assert done.record is not None and done.record.kind == "split"
    assert _entities(chains, OSLO_MN) == [OSLO_MN] and [r["kind"] for r in _rules(chains)] == ["split"]
