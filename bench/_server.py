"""Start the API under uvicorn on a loopback port for a benchmark, and wait until it accepts connections."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from graphwire.core.servers.neo4j_server import port_open

ROOT = Path(__file__).resolve().parents[1]


def status_mib(pid: int, field: str) -> float:
    """A `kB` field of /proc/<pid>/status (VmRSS, VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    raise KeyError(field)


def start_api(
    port: int, workers: int = 1, env: dict[str, str] | None = None, timeout_s: float = 120.0
) -> subprocess.Popen[bytes]:
    """`uvicorn app.main:create_app` with `workers` processes; `env` is added to this process's environment."""
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "graphwire.app.main:create_app", "--host", "127.0.0.1",
           "--port", str(port), "--workers", str(workers), "--log-level", "warning", "--no-access-log"]  # fmt: skip
    full_env = {**os.environ, "LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT), **(env or {})}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"uvicorn exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        if port_open("127.0.0.1", port):
            return proc
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError(f"uvicorn did not start within {timeout_s:.0f} s")


def wait_ready(base: str, timeout_s: float = 600.0) -> float:
    """Seconds until GET /health/ready of the API at `base` answers 200 (the startup warm-up done)."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        try:
            if httpx.get(f"{base}/health/ready", timeout=5).status_code == 200:
                return round(time.perf_counter() - started, 1)
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the API was not ready within {timeout_s:.0f} s")
