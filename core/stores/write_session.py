"""One writer's whole lifecycle over a store, the one door every writer walks through (CLI ingest and delete,
`db reset`, `db check --repair`, the API's document jobs and deletes, the Python API):

1. the writer lock and lease (`core/stores/store_lock.py`): one writer per store across processes and machines; another
   writer holding them is a `StoreBusyError` naming it; the workspace is entered in the registry
   (core/stores/workspace_registry.py), and one being deleted refuses every writer but its delete;
2. the writes (each batch stamps the store as it commits, so readers see them at once);
3. on close, whatever happened in 2: a last version stamp, the lock and lease released, and this process's caches
   told (`on_change`), so a writer cannot forget a step.

    session = WriteSession(settings, lambda: graph, "graphwire db reset", on_change=context.refresh)
    with session.open(wait_s=5.0):
        ...
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from types import TracebackType

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.store_lock import WriterLock
from graphwire.core.stores.workspace_registry import WorkspaceDeletingError, register

log = logging.getLogger(__name__)


class WriteSession:
    def __init__(
        self,
        settings: Settings,
        graph: Callable[[], Graph],
        purpose: str,
        on_change: Callable[[], None] | None = None,
        stamp: bool = True,
        deleting: bool = False,
    ) -> None:
        """`stamp=False` for a writer that empties the store: the stamp goes with it, which readers see as a change.
        `deleting`: the writer that deletes the workspace, the one that may open on a workspace being deleted."""
        self.graph = graph
        self.stamp = stamp
        self.deleting = deleting
        self.purpose = purpose
        self.on_change = on_change
        self.lock = WriterLock.for_settings(settings, graph)
        self.held = False

    def open(self, wait_s: float = 0.0) -> WriteSession:
        """Take the writer lock and lease, waiting up to `wait_s` (StoreBusyError when another writer keeps them),
        and enter the workspace in the registry (`WorkspaceDeletingError` when it is being deleted)."""
        self.lock.acquire(self.purpose, wait_s)
        try:
            _, deleting = register(self.graph(), self.purpose)
        except BaseException:
            self.lock.release()
            raise
        if deleting and not self.deleting:
            self.lock.release()
            raise WorkspaceDeletingError(self.graph().workspace)
        self.held = True
        return self

    def close(self) -> None:
        """Stamp the store, release the lock and lease, tell this process's caches; a no-op unless open."""
        if not self.held:
            return
        self.held = False
        try:
            if self.stamp:
                self._stamp()
        finally:
            self.lock.release()
            if self.on_change is not None:
                self.on_change()

    def _stamp(self) -> None:
        # best effort and without retries: a run whose Neo4j died still ends with its one-line message, and the
        # batches it committed stamped the store already
        try:
            self.graph().write_once("store/bump_version", stamp=uuid.uuid4().hex)
        except Exception as exc:
            log.debug("could not stamp the store after %s: %s", self.purpose, exc)

    def __enter__(self) -> WriteSession:
        if not self.held:
            self.open()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
