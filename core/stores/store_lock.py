"""One writer at a time per store: an exclusive advisory file lock shared by every graphwire process on the machine,
and the graph's writer lease for the other machines.

A store is one Neo4j database (with the vector store that ingestion writes beside it). Every process that writes it
(`graphwire ingest`, `ingest --delete`, `db check --repair`, the API's ingest jobs) holds `WriterLock` while it
writes; a second writer waits up to `wait_s` seconds, then gets `StoreBusyError`, whose message names the holder.

    with WriterLock.for_settings(settings, lambda: graph).hold("graphwire ingest corpus.json"):
        ...  # write

The lock is `flock(2)` on `<STORE_LOCK_DIR>/writer-<store>.lock`: the kernel releases it when its holder exits, even
on SIGKILL, so a crash never leaves a stale lock behind. The file also records who holds it (pid, what, since) for the
refusal message. It covers the processes of one machine (those that see the same lock folder). Given the graph, it
also takes the graph's writer lease (core/stores/store_lease.py), which covers writers on other machines against
the same Neo4j.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.store_holder import LockHolder, StoreBusyError
from graphwire.core.stores.store_lease import WriterLease
from graphwire.core.workspaces import DEFAULT_WORKSPACE

_LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")
POLL_S = 0.2
LEASE_POLL_S = 1.0


def store_name(settings: Settings) -> str:
    """The store a lock is for: the Neo4j address (loopback names folded into one), database and workspace (each
    workspace has its own writer; the default one keeps the name it had before workspaces)."""
    uri = settings.neo4j_uri
    for host in _LOOPBACK:
        uri = uri.replace(f"//{host}:", "//127.0.0.1:")
    workspace = "" if settings.workspace == DEFAULT_WORKSPACE else f"#{settings.workspace}"
    return f"{uri}/{settings.neo4j_database}{workspace}"


class WriterLock:
    def __init__(self, path: Path, store: str, lease: WriterLease | None = None) -> None:
        self.path = path
        self.store = store
        self.lease = lease
        self._file: IO[str] | None = None

    @classmethod
    def for_settings(cls, settings: Settings, graph: Callable[[], Graph] | None = None) -> WriterLock:
        """`graph`: the store's graph, for the writer lease (without it, this machine's processes only)."""
        store = store_name(settings)
        digest = hashlib.sha256(store.encode()).hexdigest()[:16]
        lease = WriterLease(graph, settings.store_lease_ttl_s) if graph is not None else None
        return cls(Path(settings.store_lock_dir) / f"writer-{digest}.lock", store, lease)

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self, purpose: str, wait_s: float = 0.0) -> None:
        """Take the lock (and the lease), waiting up to `wait_s` seconds; raises `StoreBusyError` when another process
        keeps either."""
        deadline = time.monotonic() + wait_s
        self._lock_file(purpose, deadline)
        try:
            self._take_lease(purpose, deadline)
        except BaseException:
            self._unlock_file()
            raise

    def _take_lease(self, purpose: str, deadline: float) -> None:
        while self.lease is not None:
            holder = self.lease.take(purpose)
            if holder is None:
                return
            if time.monotonic() >= deadline:
                raise StoreBusyError(self.store, holder)
            time.sleep(LEASE_POLL_S)

    def _lock_file(self, purpose: str, deadline: float) -> None:
        if self._file is not None:
            raise RuntimeError(f"{self.path} is already held by this WriterLock")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise StoreBusyError(self.store, self.holder()) from None
                time.sleep(POLL_S)
        holder = LockHolder(pid=os.getpid(), purpose=purpose, since=datetime.now(UTC).isoformat(timespec="seconds"))
        handle.seek(0)
        handle.truncate()
        handle.write(holder.model_dump_json())
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self.lease is not None:
            self.lease.release()  # a no-op unless it holds one
        self._unlock_file()

    def _unlock_file(self) -> None:
        handle, self._file = self._file, None
        if handle is not None:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()

    def holder(self) -> LockHolder | None:
        """Who holds the lock now (None when nobody does, or when it cannot be told)."""
        try:
            text = self.path.read_text(encoding="utf-8")
            return LockHolder.model_validate(json.loads(text)) if text.strip() else None
        except (OSError, ValueError):
            return None

    @contextmanager
    def hold(self, purpose: str, wait_s: float = 0.0) -> Iterator[WriterLock]:
        self.acquire(purpose, wait_s)
        try:
            yield self
        finally:
            self.release()
