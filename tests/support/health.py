"""Waiting on the API's readiness in tests (a TestClient app warms up or reconnects in the background)."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient
from httpx import Response


def poll_ready(client: TestClient, want: int, timeout_s: float = 240.0, every_s: float = 0.2) -> Response:
    """GET /health/ready until it answers `want` or `timeout_s` passes; the last response either way."""
    deadline = time.monotonic() + timeout_s
    response = client.get("/health/ready")
    while response.status_code != want and time.monotonic() < deadline:
        time.sleep(every_s)
        response = client.get("/health/ready")
    return response
