"""Waiting for a document job of the API (POST /v1/documents) to finish, in tests."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient


def wait_for_job(
    client: TestClient, job_id: str, timeout_s: float = 180.0, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """The job once it succeeded or failed; an AssertionError when it runs past `timeout_s`. `headers`: sent with
    every poll (a workspace's jobs are its own)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = client.get(f"/v1/jobs/{job_id}", headers=headers).json()
        if job["state"] in ("succeeded", "failed"):
            return dict(job)
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish within {timeout_s:.0f} s")
