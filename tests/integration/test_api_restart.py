"""A document job survives the API process being killed: the running one is reported failed with the reason after
the restart, the queued one runs then; nothing is lost silently. A real uvicorn process, killed with SIGKILL."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.api_process import ApiProcess, settings_env

from graphwire.app.jobs.store import INTERRUPTED
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"


def copies(n: int, tag: str) -> list[dict[str, Any]]:
    """`n` copies of the demo corpus, each record its own document (titles and urls made unique)."""
    records = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{**r, "title": f"{r['title']} ({tag} {i})", "url": f"{r['url']}/{tag}/{i}"}
            for i in range(n) for r in records]  # fmt: skip


def job(api: ApiProcess, job_id: str) -> dict[str, Any]:
    response = httpx.get(f"{api.url}/v1/jobs/{job_id}", timeout=10)
    assert response.status_code == 200, response.text
    return dict(response.json())


def wait_for_state(api: ApiProcess, job_id: str, states: set[str], timeout_s: float = 180.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        current = job(api, job_id)
        if current["state"] in states:
            return current
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never reached {states}")


def test_a_job_killed_with_the_api_is_reported_failed_after_restart_and_a_queued_one_runs(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    settings = neo4j_settings.model_copy(
        update={"chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state"}
    )
    env = settings_env(settings, STORE_LOCK_DIR=str(tmp_path / "locks"))
    log = tmp_path / "api.log"
    api = ApiProcess(env, log).start()
    try:
        big = httpx.post(f"{api.url}/v1/documents", json={"documents": copies(20, "big")}, timeout=60).json()
        small = httpx.post(f"{api.url}/v1/documents", json={"documents": copies(1, "small")[:2]}, timeout=60).json()
        wait_for_state(api, big["job_id"], {"running"})
        assert job(api, small["job_id"])["state"] == "queued"  # one job at a time
    finally:
        api.kill()

    with ApiProcess(env, log) as restarted:
        killed = job(restarted, big["job_id"])
        assert killed["state"] == "failed" and killed["error"] == INTERRUPTED and killed["finished_at"]
        survived = wait_for_state(restarted, small["job_id"], {"succeeded", "failed"})
        assert survived["state"] == "succeeded" and survived["progress"]["documents_done"] == 2
        titles = {d["title"] for d in httpx.get(f"{restarted.url}/v1/documents", params={"limit": 500}).json()["items"]}
        assert {r["title"] for r in copies(1, "small")[:2]} <= titles
