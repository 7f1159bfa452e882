"""The review queue against real Neo4j: planted duplicates in an ingested corpus (a bare surname, an acronym, a city
also stored as a Person) are proposed with their evidence, namesakes are not; accepting is a merge edit (audited,
undoable); a rejected pair leaves the queue and stays out when the documents are ingested again; bad input is a 4xx
with nothing changed; HTTP, CLI and Python go through the one door."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from test_curation import export
from test_curation import settings as settings  # noqa: F401  (fixtures)
from test_curation_rules import _clean, _entities, _env, _ingest, _record

from graphwire import Graphwire
from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.curation.models import Candidate, EditError, EditRequest, Merge, PairRequest
from graphwire.ingest.curation.service import Curation
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
SBF, BARE, FTX = "Person:sam bankman fried", "Person:bankman fried", "Organization:ftx"
IMF, IMF_LONG = "Organization:imf", "Organization:international monetary fund"
OSLO, OSLO_PERSON = "Location:oslo", "Person:oslo"
ADA, JORDAN = "Person:ada lee", "Person:jordan lee"

PLANTED = [
    _record("Sam Bankman-Fried founds FTX", "Sam Bankman-Fried founded FTX in 2019.",
            [("Sam Bankman-Fried", "Person"), ("FTX", "Organization")],
            [("Sam Bankman-Fried", "Person", "FOUNDED", "FTX", "Organization")]),
    _record("FTX founder on trial", "Bankman-Fried, who founded FTX, went on trial.",
            [("Bankman-Fried", "Person"), ("FTX", "Organization")],
            [("Bankman-Fried", "Person", "FOUNDED", "FTX", "Organization")]),
    _record("IMF lowers its forecast", "The IMF lowered its growth forecast.", [("IMF", "Organization")], []),
    _record("Fund warns on debt", "The International Monetary Fund warned on debt.",
            [("International Monetary Fund", "Organization")], []),
    _record("A ferry to Oslo", "Oslo said the ferry would run daily.", [("Oslo", "Person")], []),
    _record("Ada Lee joins FTX", "Ada Lee joined FTX.", [("Ada Lee", "Person"), ("FTX", "Organization")],
            [("Ada Lee", "Person", "WORKS_FOR", "FTX", "Organization")]),
    _record("Jordan Lee joins FTX", "Jordan Lee joined FTX.", [("Jordan Lee", "Person"), ("FTX", "Organization")],
            [("Jordan Lee", "Person", "WORKS_FOR", "FTX", "Organization")]),
]  # fmt: skip


@pytest.fixture
def planted(graph: Graph) -> Graph:
    _ingest(graph, *PLANTED)
    return graph


@pytest.fixture
def curation(planted: Graph, settings: Settings) -> Curation:
    return Curation(settings, lambda: planted, load_schema())


def _pairs(found: list[Candidate]) -> dict[tuple[str, str], Candidate]:
    return {(c.a.key, c.b.key): c for c in found}


def test_planted_duplicates_are_proposed_with_evidence_and_namesakes_are_not(curation: Curation) -> None:
    found = curation.candidates(limit=50)
    pairs = _pairs(found)
    bare = pairs[(BARE, SBF)]
    assert bare.reasons == ["surname"] and bare.shared_neighbours == 1 and bare.neighbours == ["FTX"]
    assert bare.score == round(0.7 * 0.8 + 0.3 / 3, 3)
    assert bare.a.sentences == ["Bankman-Fried, who founded FTX, went on trial."]
    assert bare.b.sentences == ["Sam Bankman-Fried founded FTX in 2019."]
    assert pairs[(IMF, IMF_LONG)].reasons == ["acronym 'imf'"]
    oslo = pairs[(OSLO, OSLO_PERSON)]
    assert oslo.reasons == ["same-name across Location/Person"] and oslo.a.label == "Location"
    assert (ADA, JORDAN) not in pairs
    assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)
    assert curation.candidates(limit=50) == found  # deterministic
    assert curation.candidates(limit=1) == found[:1]
    assert [(c.a.key, c.b.key) for c in curation.candidates(entity=OSLO_PERSON)] == [(OSLO, OSLO_PERSON)]


def test_accepting_is_an_audited_merge_that_undo_restores(planted: Graph, curation: Curation) -> None:
    before = export(planted)
    request = EditRequest(edit=Merge(survivor=OSLO, merged=OSLO_PERSON), by="ana", reason="the city")
    done = curation.apply(request)
    assert done.record is not None and _entities(planted, OSLO, OSLO_PERSON) == [OSLO]
    assert [r.id for r in curation.log(OSLO_PERSON)] == [done.record.id]
    assert (OSLO, OSLO_PERSON) not in _pairs(curation.candidates(limit=50))
    curation.undo(done.record.id, by="ana")
    assert export(planted) == before
    assert (OSLO, OSLO_PERSON) in _pairs(curation.candidates(limit=50))


def test_a_rejected_pair_stays_out_after_reingest_until_taken_back(
    planted: Graph, curation: Curation, settings: Settings
) -> None:
    rejection = curation.reject(PairRequest(a=IMF_LONG, b=IMF, by="ana", reason="not the same fund"))
    assert (rejection.a, rejection.b, rejection.by) == (IMF, IMF_LONG, "ana")
    assert (IMF, IMF_LONG) not in _pairs(curation.candidates(limit=50))
    assert (BARE, SBF) in _pairs(curation.candidates(limit=50))
    _ingest(planted, *PLANTED)  # the same documents again: same keys, the rejection holds
    assert (IMF, IMF_LONG) not in _pairs(curation.candidates(limit=50))
    assert [(r.a, r.b, r.reason) for r in curation.rejections()] == [(IMF, IMF_LONG, "not the same fund")]
    _clean(planted, settings)
    curation.unreject(PairRequest(a=IMF, b=IMF_LONG, by="ana"))
    assert (IMF, IMF_LONG) in _pairs(curation.candidates(limit=50))
    assert curation.rejections() == []


@pytest.mark.parametrize(
    ("a", "b", "status", "message"),
    [(IMF, IMF, 422, "two different entities"), (IMF, "Organization:nobody", 404, "no entity with key")],
)
def test_bad_pairs_are_refused(curation: Curation, a: str, b: str, status: int, message: str) -> None:
    with pytest.raises(EditError, match=message) as refused:
        curation.reject(PairRequest(a=a, b=b, by="ana"))
    assert refused.value.status == status and curation.rejections() == []


def test_http_cli_and_python_use_the_same_door(planted: Graph, settings: Settings, tmp_path: Path) -> None:
    secured = settings.model_copy(update={"api_key": SecretStr("k3y")})
    key = {"X-API-Key": "k3y"}
    with TestClient(create_app(secured)) as client:
        assert client.get("/v1/graph/edits/candidates").status_code == 401
        listed = client.get("/v1/graph/edits/candidates", params={"limit": 50}, headers=key)
        assert listed.status_code == 200
        assert [c["a"]["key"] for c in listed.json() if c["b"]["key"] == SBF] == [BARE]
        same = client.post("/v1/graph/edits/candidates/reject", json={"a": SBF, "b": SBF}, headers=key)
        assert same.status_code == 422 and same.json()["error"]["code"] == "edit_refused"
        unknown = client.post("/v1/graph/edits/candidates/reject", json={"a": SBF, "b": "Person:x"}, headers=key)
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
        extra = client.post("/v1/graph/edits/candidates/reject", json={"a": SBF}, headers=key)
        assert extra.status_code == 422 and extra.json()["error"]["code"] == "validation_error"
        done = client.post("/v1/graph/edits/candidates/reject", json={"a": SBF, "b": BARE, "by": "ana"}, headers=key)
        assert done.status_code == 200 and done.json()["a"] == BARE
        listed = client.get("/v1/graph/edits/candidates", params={"entity": SBF}, headers=key).json()
        assert all(BARE not in (c["a"]["key"], c["b"]["key"]) for c in listed)
        assert client.get("/v1/graph/edits/candidates/rejections", headers=key).json()[0]["by"] == "ana"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphwire.cli.main", "edit", *args], env=_env(settings),
                              cwd=tmp_path, capture_output=True, text=True, timeout=240)  # fmt: skip

    shown = cli("candidates", "--entity", OSLO)
    assert shown.returncode == 0 and f"{OSLO}  <>  {OSLO_PERSON}" in shown.stdout
    assert "Oslo said the ferry would run daily." in shown.stdout
    assert cli("reject", BARE, SBF, "--undo").returncode == 0
    again = cli("reject", BARE, SBF, "--undo")
    assert again.returncode == 1 and "was not rejected" in again.stderr
    assert cli("reject", OSLO, OSLO_PERSON, "--by", "ana").returncode == 0

    with Graphwire(settings) as gw:
        keys = [(c.a.key, c.b.key) for c in gw.merge_candidates(limit=50)]
        assert (BARE, SBF) in keys and (OSLO, OSLO_PERSON) not in keys
        gw.reject_pair(OSLO, OSLO_PERSON, by="ana", undo=True)
        assert (OSLO, OSLO_PERSON) in [(c.a.key, c.b.key) for c in gw.merge_candidates(entity=OSLO)]
