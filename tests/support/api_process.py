"""The API as a real server process (uvicorn, as `graphwire serve` runs it) on a free loopback port, for tests that
need a real client over real HTTP (the `openai` SDK, streaming, a process killed mid-job).

    with ApiProcess(settings_env(settings)) as api:
        httpx.get(f"{api.url}/health")
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 120.0


def settings_env(settings: Settings, **extra: str) -> dict[str, str]:
    """Environment variables that make a server process use these settings' Neo4j and stores."""
    env = {
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_USER": settings.neo4j_user,
        "NEO4J_PASSWORD": settings.neo4j_password.get_secret_value() if settings.neo4j_password else "",
        "CHROMA_PATH": str(settings.chroma_path),
        "INGEST_STATE_PATH": str(settings.ingest_state_path),
        "EXTRACTION_CACHE_PATH": str(settings.extraction_cache_path),
        "AUTH_STORE_PATH": str(settings.auth_store_path),  # the audit log of the writes the tests make
        "LOG_LEVEL": "WARNING",
    }
    if settings.chroma_host:
        env |= {"CHROMA_HOST": settings.chroma_host, "CHROMA_PORT": str(settings.chroma_port)}
    return env | extra


class ApiProcess:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log, self.port = env, log, free_port()
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ApiProcess:
        cmd = [sys.executable, "-m", "uvicorn", "--factory", "graphwire.app.main:create_app", "--host", "127.0.0.1",
               "--port", str(self.port), "--log-level", "warning"]  # fmt: skip
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "CHROMA_", "LLM_"))}
        with self.log.open("ab") as log:
            self._proc = subprocess.Popen(cmd, cwd=ROOT, env={**keep, **self.env}, stdout=log, stderr=log)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"the API exited with {self._proc.returncode}: {self.log.read_text()[-3000:]}")
            try:
                httpx.get(f"{self.url}/version", timeout=1.0)
                return self
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the API did not answer within {START_TIMEOUT_S:.0f} s")

    def kill(self) -> None:
        """SIGKILL: no shutdown hook runs, as when the machine or the container dies."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGKILL)
            self._proc.wait(timeout=30)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> ApiProcess:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
