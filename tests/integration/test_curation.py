"""Graph edits by hand (ingest/curation/) against real Neo4j, through the service, the HTTP routes and the CLI: each
edit's dry run says what it changes, the applied edit leaves a consistent store that retrieval still walks, undo
gives back exactly the graph before it, and bad input changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.chains import ingest_chains
from support.store_state import store_state as export

from graphwire import Graphwire
from graphwire.app.main import create_app
from graphwire.core.clients.chroma import open_client
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.store_lock import StoreBusyError, WriterLock
from graphwire.ingest.consistency import check_store
from graphwire.ingest.curation.models import (
    AddFact,
    Alias,
    DeleteEntity,
    DeleteFact,
    EditError,
    EditRequest,
    EditSpec,
    Merge,
    Relabel,
    Rename,
)
from graphwire.ingest.curation.service import Curation
from graphwire.ingest.pipeline import delete_document
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.retrieval.registry import RetrievalContext
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]

LUMEN, CORVID, MARA = "Organization:lumen labs", "Organization:corvid analytics", "Person:mara ellison"
KESTREL, BRIGHTCELL, OSLO = "Organization:kestrel motors", "Organization:brightcell energy", "Location:oslo"


@pytest.fixture
def settings(neo4j_settings: Settings, tmp_path: Path) -> Settings:
    return neo4j_settings.model_copy(
        update={"store_lock_dir": tmp_path / "locks", "chroma_path": tmp_path / "chroma", "graph_fill_mode": "none"}
    )


@pytest.fixture
def chains(graph: Graph) -> Graph:
    ingest_chains(graph)
    return graph


@pytest.fixture
def curation(chains: Graph, settings: Settings) -> Curation:
    return Curation(settings, lambda: chains, load_schema())


def _apply(curation: Curation, edit: EditSpec) -> str:
    result = curation.apply(EditRequest(edit=edit, by="tester", reason="test"))
    assert result.applied and result.record is not None
    return result.record.id


def _chunk_mentioning(graph: Graph, key: str) -> str:
    return str(
        next(r["start_id"] for r in graph.read("curation/relationships", keys=[key]) if r["start_kind"] == "Chunk")
    )


def _healthy(graph: Graph, settings: Settings) -> None:
    """The store's consistency check is clean, and graph and PPR retrieval run over the edited graph."""
    found = check_store(graph, None, ProvenanceCaps.of(load_schema(), settings))
    assert found.ok, found.problems()
    context = RetrievalContext(settings, graph=lambda: graph, chroma=lambda: open_client(settings))
    for mode in ("graph", "ppr"):
        result = context.retriever(mode).retrieve("Who works for Lumen Labs?", top_k=5)
        assert "Lumen Labs" in [e.name for e in result.entities], mode
        assert result.chunks, mode


def test_merge_dry_run_apply_audit_and_undo(chains: Graph, curation: Curation, settings: Settings) -> None:
    before = export(chains)
    request = EditRequest(edit=Merge(survivor=LUMEN, merged=CORVID), by="ana", reason="same company")
    preview = curation.preview(request)
    assert not preview.applied and preview.record is None
    assert preview.change.entities_removed == [CORVID] and preview.change.entities_changed == [LUMEN]
    # Corvid COMPETES_WITH Lumen would be a loop; Mara's two WORKS_FOR become one with both chunks
    assert f"{CORVID} -COMPETES_WITH-> {LUMEN}" in preview.change.relationships_removed
    assert f"{MARA} -WORKS_FOR-> {LUMEN}" in preview.change.relationships_changed
    assert export(chains) == before  # the dry run changed nothing

    applied = curation.apply(request)
    assert applied.change == preview.change and applied.record is not None
    rows = chains.read("curation/entities", keys=[LUMEN, CORVID])
    assert [r["key"] for r in rows] == [LUMEN]
    assert "Corvid Analytics" in rows[0]["props"]["aliases"]
    works = [r for r in chains.read("curation/relationships", keys=[MARA]) if r["type"] == "WORKS_FOR"]
    assert len(works) == 1 and len(works[0]["props"]["chunk_ids"]) == 2
    assert len(works[0]["props"]["evidence"]) == 2
    _healthy(chains, settings)

    log = curation.log(CORVID)
    assert [(r.id, r.kind, r.by, r.reason) for r in log] == [(applied.record.id, "merge", "ana", "same company")]
    assert curation.log(MARA) == []  # Mara's relationships moved, but Mara herself was not edited

    undone = curation.undo(applied.record.id, by="ana", reason="they are two companies")
    assert undone.change.entities_added == [CORVID]
    assert export(chains) == before
    _healthy(chains, settings)
    assert undone.record is not None and undone.record.undoes == applied.record.id  # the undo is its own record
    assert curation.get(applied.record.id).undone_by == undone.record.id
    with pytest.raises(EditError, match="undone already"):
        curation.undo(applied.record.id, by="ana")


def test_rename_relabel_alias_and_facts_undo_exactly(chains: Graph, curation: Curation, settings: Settings) -> None:
    before = export(chains)
    chunk_id = _chunk_mentioning(chains, OSLO)
    edits: list[EditSpec] = [
        Rename(key=KESTREL, name="Kestrel Automotive"),
        Alias(key="Organization:kestrel automotive", alias="KM"),
        DeleteFact(source=BRIGHTCELL, type="LOCATED_IN", target=OSLO),
        AddFact(source=BRIGHTCELL, type="LOCATED_IN", target=OSLO, chunk_id=chunk_id,
                evidence="Brightcell is based in Oslo."),
        Relabel(key="Product:kestrel k2", label="CreativeWork"),
        DeleteEntity(key="Organization:hyperscalers group"),
    ]  # fmt: skip
    ids = []
    for edit in edits:
        ids.append(_apply(curation, edit))
        _healthy(chains, settings)
    relabelled = chains.read("curation/entities", keys=["CreativeWork:kestrel k2"])[0]["labels"]
    assert sorted(relabelled) == ["CreativeWork", "Entity"]
    aliases = chains.read("curation/entities", keys=["Organization:kestrel automotive"])[0]["props"]["aliases"]
    assert aliases[0] == "Kestrel Automotive" and "Kestrel Motors" in aliases and aliases[-1] == "KM"
    assert {r.kind for r in curation.log()} == {
        "rename",
        "alias",
        "delete-fact",
        "add-fact",
        "relabel",
        "delete-entity",
    }
    # undoing the rename first is refused: the alias edit came later and touches the same entity
    with pytest.raises(EditError, match="later edits") as refused:
        curation.undo(ids[0], by="tester")
    assert ids[1] in str(refused.value)
    for edit_id in reversed(ids):
        curation.undo(edit_id, by="tester")
    assert export(chains) == before
    _healthy(chains, settings)


@pytest.mark.parametrize(
    ("edit", "status", "message"),
    [
        (Merge(survivor=LUMEN, merged=LUMEN), 422, "into itself"),
        (Merge(survivor=LUMEN, merged=MARA), 422, "schema forbids"),
        (Merge(survivor=LUMEN, merged="Organization:nobody"), 404, "no entity"),
        (Relabel(key=MARA, label="Location"), 422, "schema forbids"),
        (Relabel(key=MARA, label="Spaceship"), 422, "not a label"),
        (Relabel(key=MARA, label="Person"), 422, "changes nothing"),
        (Rename(key=CORVID, name="Lumen Labs"), 409, "exists already"),
        (DeleteFact(source=MARA, type="FOUNDED", target=LUMEN), 404, "no relationship"),
        (AddFact(source=OSLO, type="CEO_OF", target=LUMEN, chunk_id="x", evidence="e"), 404, "no chunk"),
        (Alias(key=MARA, alias="Mara Ellison", remove=True), 422, "is the name"),
    ],
)
def test_bad_edits_change_nothing(chains: Graph, curation: Curation, edit: EditSpec, status: int, message: str) -> None:
    before = export(chains)
    with pytest.raises(EditError, match=message) as refused:
        curation.apply(EditRequest(edit=edit, by="tester"))
    assert refused.value.status == status
    assert export(chains) == before and curation.log() == []


def test_a_fact_the_schema_forbids(chains: Graph, curation: Curation) -> None:
    chunk_id = _chunk_mentioning(chains, OSLO)
    before = export(chains)
    with pytest.raises(EditError, match=r"no pattern \[Location, CEO_OF, Organization\]"):
        curation.apply(EditRequest(edit=AddFact(source=OSLO, type="CEO_OF", target=LUMEN, chunk_id=chunk_id,
                                                evidence="Oslo runs Lumen."), by="t"))  # fmt: skip
    assert export(chains) == before


def test_undo_is_refused_after_a_later_ingest_touched_the_entities(
    chains: Graph, curation: Curation, settings: Settings
) -> None:
    edit_id = _apply(curation, Merge(survivor=LUMEN, merged=CORVID))
    ingest_chains(chains)  # the same documents again: Corvid Analytics now resolves to its survivor, nothing changes
    assert curation.undo(edit_id, by="tester", dry_run=True).change.entities_added == [CORVID]
    title = "Corvid Analytics adds fintech veteran to board"
    document_id = chains.read("ingest/find_documents", ref=title)[0]["id"]
    caps = ProvenanceCaps.of(load_schema(), settings)
    assert delete_document(chains, document_id, provenance=caps) is not None  # a later write: Lumen loses mentions
    before = export(chains)
    with pytest.raises(EditError, match="changed since") as refused:
        curation.undo(edit_id, by="tester")
    assert refused.value.status == 409 and LUMEN in str(refused.value)
    assert export(chains) == before


def test_http_and_cli_use_the_same_door(chains: Graph, settings: Settings, tmp_path: Path) -> None:
    before = export(chains)
    with TestClient(create_app(settings)) as client:
        merge = {"kind": "merge", "survivor": LUMEN, "merged": CORVID}
        body: dict[str, Any] = {"edit": merge, "by": "ana", "reason": "dupe"}
        dry = client.post("/v1/graph/edits", params={"dry_run": True}, json=body)
        assert dry.status_code == 200 and dry.json()["applied"] is False
        assert dry.json()["change"]["entities_removed"] == [CORVID]
        assert export(chains) == before

        bad = client.post("/v1/graph/edits", json={**body, "edit": {**merge, "merged": LUMEN}})
        assert bad.status_code == 422 and "into itself" in bad.json()["error"]["message"]
        missing = client.post("/v1/graph/edits/nope/undo", json={"by": "ana"})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"

        lock = WriterLock.for_settings(settings, lambda: chains)
        lock.acquire("graphwire ingest by a colleague")
        try:
            busy = client.post("/v1/graph/edits", json=body)
        finally:
            lock.release()
        assert busy.status_code == 409 and "graphwire ingest by a colleague" in busy.json()["error"]["message"]
        assert export(chains) == before

        applied = client.post("/v1/graph/edits", json=body)
        assert applied.status_code == 200, applied.text
        edit_id = applied.json()["record"]["id"]
        assert [e["id"] for e in client.get("/v1/graph/edits", params={"entity": LUMEN}).json()] == [edit_id]
        assert client.get(f"/v1/graph/edits/{edit_id}").json()["kind"] == "merge"

    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "STORE_LOCK_DIR": str(settings.store_lock_dir),
        "COLUMNS": "200",
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphwire.cli.main", "edit", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=240)  # fmt: skip

    log = cli("log", "--entity", CORVID)
    assert log.returncode == 0 and edit_id in log.stdout and "merge by ana: dupe" in log.stdout
    preview = cli("undo", edit_id, "--dry-run")
    assert preview.returncode == 0 and "dry run" in preview.stdout and CORVID in preview.stdout
    done = cli("undo", edit_id, "--by", "ana")
    assert done.returncode == 0, done.stderr
    assert export(chains) == before
    again = cli("undo", edit_id)
    assert again.returncode == 1 and again.stderr.startswith("error: ") and "undone already" in again.stderr
    itself = cli("merge", LUMEN, LUMEN)
    assert itself.returncode == 1 and "into itself" in itself.stderr
    assert export(chains) == before


def test_the_python_api_uses_the_same_door(chains: Graph, settings: Settings) -> None:
    before = export(chains)
    with Graphwire(settings) as gw:
        merge = Merge(survivor=LUMEN, merged=CORVID)
        assert gw.edit(merge, by="ana", dry_run=True).change.entities_removed == [CORVID]
        assert export(chains) == before
        done = gw.edit(merge, by="ana", reason="dupe")
        assert done.record is not None and [r.id for r in gw.edits(entity=CORVID)] == [done.record.id]
        with pytest.raises(EditError, match="into itself"):
            gw.edit(Merge(survivor=LUMEN, merged=LUMEN), by="ana")
        gw.undo_edit(done.record.id, by="ana")
    assert export(chains) == before


def test_a_writer_holding_the_lock_is_named(chains: Graph, curation: Curation, settings: Settings) -> None:
    lock = WriterLock.for_settings(settings, lambda: chains)
    lock.acquire("graphwire ingest by a colleague")
    try:
        with pytest.raises(StoreBusyError, match="graphwire ingest by a colleague"):
            curation.apply(EditRequest(edit=DeleteEntity(key=MARA), by="t"), wait_s=0.2)
    finally:
        lock.release()
    assert chains.read("curation/entities", keys=[MARA])


def test_a_killed_edit_leaves_the_old_state_or_the_new_one(
    chains: Graph, curation: Curation, settings: Settings
) -> None:
    env = {
        **os.environ,
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "STORE_LOCK_DIR": str(settings.store_lock_dir),
    }

    def killed(when: str) -> None:
        command = [sys.executable, "-m", "support.curation_crash", when, LUMEN, CORVID]
        run = subprocess.run(command, env=env, cwd=REPO / "tests", capture_output=True, text=True, timeout=240)
        assert run.returncode == -signal.SIGKILL, run.stderr[-3000:]

    before = export(chains)
    killed("before")  # holding the lock, the snapshot read, nothing sent
    assert export(chains) == before and curation.log() == []
    edit_id = _apply(curation, Merge(survivor=LUMEN, merged=CORVID))  # the dead writer's lease is taken over
    merged = export(chains)
    curation.undo(edit_id, by="tester")
    assert export(chains) == before

    killed("after")  # committed, the lock never released
    assert export(chains) == merged
    _healthy(chains, settings)
    [record] = [r for r in curation.log() if r.kind == "merge" and r.undone_by is None]
    curation.undo(record.id, by="tester")
    assert export(chains) == before
