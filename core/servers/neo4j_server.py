"""A local Neo4j 5.26 Community assembled from Maven Central: build once, start, stop, status.

Used by `graphwire neo4j ...`, by the test fixtures and by CI on machines without a Docker engine.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from graphwire.core.paths import maven_project
from graphwire.core.settings import LOCAL_HOSTS, Settings, default_of
from graphwire.core.stores.processes import pid_alive

MAIN_CLASS = "io.graphwire.neo4j.Launcher"
JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    # Neo4j 5 reaches into NIO internals; without these it dies at start on Java 17.
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
]


# Lucene opens many files; Neo4j warns below 40 000 descriptors.
WANTED_OPEN_FILES = 65536


class Neo4jServerError(RuntimeError):
    """A launcher problem with a message a person can act on."""


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    bolt: str
    http: str | None
    rss_mb: float | None


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        return sock.connect_ex((host, port)) == 0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _is_launcher(pid: int, home: Path) -> bool:
    """Is `pid` our launcher for this home (and not a reused pid from a stale pid file)?"""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc (not Linux): trust the pid file
    return MAIN_CLASS.encode() in args and str(home).encode() in args


def _raise_open_files_limit() -> None:
    """Runs in the child before exec: lift the soft descriptor limit towards WANTED_OPEN_FILES."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = WANTED_OPEN_FILES if hard == resource.RLIM_INFINITY else min(WANTED_OPEN_FILES, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # it exited in the meantime
        os.killpg(pid, sig)


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class LocalNeo4j:
    """One server: its home folder holds conf/, data/, logs/, the password file and the pid file."""

    def __init__(
        self,
        home: Path,
        bolt_port: int = 7687,
        http_port: int | None = default_of("neo4j_http_port"),
        heap: str = default_of("neo4j_heap"),
        pagecache: str = default_of("neo4j_pagecache"),
        launcher_dir: Path | None = None,
    ) -> None:
        self.home = home.resolve()
        self.bolt_port = bolt_port
        self.http_port = http_port
        self.heap = heap
        self.pagecache = pagecache
        self.launcher_dir = launcher_dir or maven_project("neo4j")
        self.pid_file = self.home / "neo4j.pid"
        self.password_file = self.home / "password"
        self.log_file = self.home / "logs" / "launcher.log"

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalNeo4j:
        """The local server NEO4J_URI points at (Bolt port from the URI); refuses a non-local URI."""
        uri = urlparse(settings.neo4j_uri)
        if (uri.hostname or "") not in LOCAL_HOSTS:
            raise Neo4jServerError(
                f"NEO4J_URI={settings.neo4j_uri} is not on this machine; the local launcher only serves 127.0.0.1"
            )
        if uri.scheme not in ("bolt", "neo4j"):
            raise Neo4jServerError(f"the local launcher serves plain bolt:// (no TLS), not {uri.scheme}://")
        return cls(
            settings.neo4j_home,
            bolt_port=uri.port or 7687,
            http_port=settings.neo4j_http_port or None,
            heap=settings.neo4j_heap,
            pagecache=settings.neo4j_pagecache,
        )

    @property
    def browser_url(self) -> str | None:
        return f"{self.http_url}/browser/" if self.http_url else None

    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def http_url(self) -> str | None:
        return f"http://127.0.0.1:{self.http_port}" if self.http_port else None

    # build ---------------------------------------------------------------------------------------------
    @property
    def _jar(self) -> Path:
        return self.launcher_dir / "target" / "neo4j-launcher.jar"

    def is_built(self) -> bool:
        lib = self.launcher_dir / "target" / "lib"
        if not (self._jar.exists() and lib.is_dir()):
            return False
        sources = [self.launcher_dir / "pom.xml", *self.launcher_dir.glob("src/**/*.java")]
        return all(src.stat().st_mtime <= self._jar.stat().st_mtime for src in sources)

    def build(self) -> bool:
        """Build the launcher and copy Neo4j's jars once; returns False when the cached build is current.

        A file lock serialises concurrent builds (parallel test sessions share tools/neo4j/target).
        """
        if self.is_built():
            return False
        _require_tool("java", "a Java 17 runtime (OpenJDK 17)")
        mvn = _require_tool("mvn", "Apache Maven")
        target = self.launcher_dir / "target"
        target.mkdir(exist_ok=True)
        with (target / ".build.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.is_built():  # another process built it while we waited
                return False
            cmd = [mvn, "-q", "-B", "-f", str(self.launcher_dir / "pom.xml"), "-DskipTests", "package"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise Neo4jServerError(f"building the Neo4j launcher failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
        self._jar.touch()  # the jar plugin skips an up-to-date jar; its mtime marks the build as current
        return True

    # lifecycle -----------------------------------------------------------------------------------------
    def _pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if pid_alive(pid) and _is_launcher(pid, self.home) else None

    def ensure_password(self, password: str | None = None) -> str:
        """Use the given password, else keep the stored one, else generate one (file mode 0600)."""
        self.home.mkdir(parents=True, exist_ok=True)
        if password is None and self.password_file.exists():
            return self.password_file.read_text().strip()
        value = password or secrets.token_urlsafe(18)
        if len(value) < 8:
            raise Neo4jServerError("the Neo4j password must have at least 8 characters")
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(value)
        return value

    def start(
        self, timeout_s: float = default_of("neo4j_start_timeout_s"), password: str | None = None
    ) -> ServerStatus:
        """Start in the background and wait for Bolt; a running server is left as it is."""
        if self._pid() is not None:
            return self.status()
        for port in filter(None, [self.bolt_port, self.http_port]):
            if port_open("127.0.0.1", port):
                raise Neo4jServerError(
                    f"port {port} on 127.0.0.1 is taken by another process; stop it or choose other ports "
                    "(NEO4J_URI for Bolt, NEO4J_HTTP_PORT for HTTP)"
                )
        self.build()
        self.ensure_password(password)
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        cmd = self._command()
        with self.log_file.open("wb") as log:
            proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_raise_open_files_limit
            )
        self.pid_file.write_text(str(proc.pid))
        self._wait_ready(proc, timeout_s)
        return self.status()

    def _command(self) -> list[str]:
        java = _require_tool("java", "a Java 17 runtime (OpenJDK 17)")
        classpath = f"{self._jar}:{self.launcher_dir / 'target' / 'lib'}/*"
        http = f"127.0.0.1:{self.http_port}" if self.http_port else "off"
        return [
            java,
            f"-Xms{self.heap}",
            f"-Xmx{self.heap}",
            *JVM_FLAGS,
            "-cp",
            classpath,
            MAIN_CLASS,
            "--home", str(self.home),
            "--data", str(self.home / "data"),
            "--bolt", f"127.0.0.1:{self.bolt_port}",
            "--http", http,
            "--pagecache", self.pagecache,
            "--password-file", str(self.password_file),
        ]  # fmt: skip

    def _wait_ready(self, proc: subprocess.Popen[bytes], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                raise Neo4jServerError(f"Neo4j exited with code {proc.returncode} during start:\n{self.log_tail()}")
            if b"READY bolt://" in self.log_file.read_bytes() and port_open("127.0.0.1", self.bolt_port):
                return
            time.sleep(0.25)
        self.stop()
        raise Neo4jServerError(f"Neo4j did not answer Bolt within {timeout_s:.0f} s:\n{self.log_tail()}")

    def stop(self, timeout_s: float = 60.0) -> bool:
        """SIGTERM (Neo4j shuts down cleanly), then SIGKILL after the timeout. False when nothing ran."""
        pid = self._pid()
        self.pid_file.unlink(missing_ok=True)
        if pid is None:
            return False
        _signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and pid_alive(pid):
            time.sleep(0.2)
        if pid_alive(pid):
            _signal_group(pid, signal.SIGKILL)
        return True

    def status(self) -> ServerStatus:
        pid = self._pid()
        return ServerStatus(
            running=pid is not None and port_open("127.0.0.1", self.bolt_port),
            pid=pid,
            bolt=self.bolt_uri,
            http=self.http_url,
            rss_mb=_rss_mb(pid) if pid else None,
        )

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def _require_tool(name: str, what: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise Neo4jServerError(f"`{name}` not found on PATH: the local Neo4j needs {what}")
    return path
