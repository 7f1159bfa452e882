"""A real Chroma server for tests: `chroma run` (the chromadb package's CLI) on a free loopback port.

    with ChromaServer(tmp_path / "chroma-server") as server:
        settings = Settings(chroma_host=server.host, chroma_port=server.port)

The session fixture `chroma_server` starts one for the whole run; each test uses its own collection name.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

START_TIMEOUT_S = 60.0


def chroma_executable() -> str:
    beside = Path(sys.executable).with_name("chroma")  # the venv's console script
    found = str(beside) if beside.exists() else shutil.which("chroma")
    if not found:
        raise RuntimeError("the `chroma` command (chromadb package) is not installed")
    return found


def on_chroma(kind: str, settings: Settings, request: pytest.FixtureRequest) -> Settings:
    """`settings` as they are for a Chroma `folder`, or pointed at the session's Chroma server for `server` (a
    collection of its own): the two kinds the chunk store's tests run on."""
    if kind == "folder":
        return settings
    server: ChromaServer = request.getfixturevalue("chroma_server")
    return server.settings(settings)


class ChromaServer:
    def __init__(self, path: Path, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.path, self.host, self.port = path, host, port or free_port()
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = path.parent / f"{path.name}.log"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> ChromaServer:
        self.path.mkdir(parents=True, exist_ok=True)
        cmd = [chroma_executable(), "run", "--path", str(self.path), "--host", self.host, "--port", str(self.port)]
        with self._log.open("wb") as log:
            self._proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {self._proc.returncode}: {self._log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"chroma run did not answer on {self.url} within {START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def settings(self, base: Settings | None = None, collection: str | None = None) -> Settings:
        """`base` pointed at this server, with a fresh collection name unless one is given."""
        update = {"chroma_host": self.host, "chroma_port": self.port,
                  "chroma_collection": collection or f"test_{uuid.uuid4().hex[:12]}"}  # fmt: skip
        return (base or Settings()).model_copy(update=update)

    def __enter__(self) -> ChromaServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def chroma_server() -> Iterator[ChromaServer]:
    """One Chroma server for the test session, its data in a temporary folder removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="graphwire-chroma-"))
    try:
        with ChromaServer(folder / "data") as server:
            yield server
    finally:
        shutil.rmtree(folder, ignore_errors=True)
