"""The workspaces of a serving process (docs/security.md#workspaces): the services of each one it is asked about, and
their creation, listing, description and deletion for /v1/workspaces (app/routers/workspaces.py), through the
registry the CLI uses too (core/stores/workspace_registry.py).

The services of the process's own workspace (`served`) live as long as the process. Another workspace's are made on
its first request (`Services.in_workspace`) and kept, at most WORKSPACES_LOADED_MAX of them: past that, the one asked
least recently with no job running or waiting is let go (its job worker stopped, its caches left to the collector)
and made again when next asked; its queued jobs are in its job store and resume then. A request naming a workspace
that does not exist is a 404, one being deleted a 409.

A delete marks the workspace at once (nothing writes into it from then on), answers, and is finished by one thread
(`Deleter`), in bounded transactions; a delete cut short by a stop or a crash is finished when the API next starts.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import OrderedDict

from graphwire.app.errors import ApiError
from graphwire.app.services import Services
from graphwire.core.auth.models import Principal
from graphwire.core.clients.graph import Graph
from graphwire.core.stores import workspace_registry
from graphwire.core.stores.workspace_registry import WorkspaceDeletingError, WorkspaceInfo

log = logging.getLogger(__name__)
RETRY_S = 10.0  # a delete that failed (Neo4j away, another writer) is tried again this much later
WRITER_WAIT_S = 60.0  # how long a delete waits for the workspace's writer (a job stops at its next batch)
STOP_WAIT_S = 30.0  # how long stopping the process waits for a delete under way; the rest is done at the next start


class WorkspaceServices:
    def __init__(self, served: Services) -> None:
        self.served = served
        self.limit = served.settings.workspaces_loaded_max
        self._loaded: OrderedDict[str, Services] = OrderedDict()  # least recently asked first
        self._lock = threading.Lock()
        self.deleter = Deleter(self)

    @property
    def name(self) -> str:
        """The workspace the process serves (WORKSPACE), which requests naming none act in."""
        return self.served.settings.workspace

    def graph(self, workspace: str | None = None) -> Graph:
        """A view of the process's graph in `workspace` (the served one when None)."""
        return self.served.graph_provider.get().in_workspace(workspace or self.name)  # it checks the name

    def of(self, workspace: str) -> Services:
        """The services of `workspace`: 404 when it does not exist, 409 while it is being deleted."""
        if workspace == self.name:
            return self.served
        with self._lock:
            found = self._loaded.get(workspace)
            if found is not None:
                self._loaded.move_to_end(workspace)
                return found
        self._require_usable(workspace)
        with self._lock:
            found = self._loaded.get(workspace)
            if found is None:
                found = self._loaded[workspace] = self.served.in_workspace(workspace)
            self._loaded.move_to_end(workspace)
            released = self._over_limit()
        for services in released:
            services.stop_workspace()
        return found

    def loaded(self) -> list[str]:
        """The other workspaces whose services are loaded now, least recently asked first."""
        with self._lock:
            return list(self._loaded)

    def _over_limit(self) -> list[Services]:
        excess = len(self._loaded) - self.limit
        released = []
        for name in list(self._loaded)[:-1]:  # never the one just asked for
            if excess <= 0:
                break
            if self._loaded[name].document_writes.runner.idle():
                released.append(self._loaded.pop(name))
                excess -= 1
        return released

    def _require_usable(self, workspace: str) -> None:
        exists, deleting = workspace_registry.state(self.graph(workspace))
        if deleting:
            raise _deleting(workspace)
        if not exists:
            raise ApiError(
                404,
                "unknown_workspace",
                f"no workspace {workspace!r}: a server admin creates it with POST /v1/workspaces",
                {"workspace": workspace},
            )
        if self.deleter.pending(workspace):  # created again while this process still finishes the old one
            raise _deleting(workspace)

    def entries(self, caller: Principal) -> list[WorkspaceInfo]:
        """Every workspace the caller holds a role in (a server admin: every one), with its counts."""
        return [info for info in workspace_registry.entries(self.graph()) if caller.role_in(info.name) is not None]

    def describe(self, workspace: str) -> WorkspaceInfo:
        info = workspace_registry.describe(self.graph(workspace))
        if info is None:
            raise ApiError(404, "unknown_workspace", f"no workspace {workspace!r}", {"workspace": workspace})
        return info

    def create(self, workspace: str, actor: Principal) -> tuple[WorkspaceInfo, bool]:
        """Create `workspace` (audited as `workspace.create`): its description, and whether it is new."""
        try:
            created = workspace_registry.create(self.graph(workspace), by=actor.name)
        except WorkspaceDeletingError as exc:
            raise _deleting(workspace) from exc
        if created:
            self.served.audit.record(actor, [("workspace.create", workspace, {})], workspace=workspace)
        return self.describe(workspace), created

    def delete(self, workspace: str, actor: Principal) -> WorkspaceInfo:
        """Mark `workspace` deleted and hand it to the deleter (audited as `workspace.delete`, with its counts)."""
        if workspace == self.name:
            raise ApiError(
                409,
                "served_workspace",
                f"this API process serves workspace {workspace!r}; empty it with `graphwire -w {workspace} db reset "
                "--yes`, or delete it through a process that serves another",
            )
        info = self.describe(workspace)
        since = workspace_registry.mark_deleting(self.graph(workspace), by=actor.name)
        with self._lock:
            released = self._loaded.pop(workspace, None)
        counts = info.model_dump(include={"documents", "chunks", "entities", "relationships"})
        self.served.audit.record(actor, [("workspace.delete", workspace, counts)], workspace=workspace)
        self.deleter.submit(workspace, released)
        return info.model_copy(update={"state": "deleting", "deleting_since": since})

    def finish_delete(self, workspace: str) -> workspace_registry.DeleteResult:
        """Delete what is left of a marked workspace; raises when it cannot (tried again by the deleter)."""
        return workspace_registry.delete(
            self.served.settings.for_workspace(workspace),
            self.graph(workspace),
            self.served.chroma_provider.get,
            by=f"graphwire API delete workspace {workspace}",
            wait_s=WRITER_WAIT_S,
        )

    def start(self) -> None:
        """Start the deleter, which first finishes the deletes a stop or a crash cut short."""
        self.deleter.start()

    def stop(self) -> None:
        self.deleter.stop()
        with self._lock:
            others, self._loaded = list(self._loaded.values()), OrderedDict()
        for services in others:
            services.stop_workspace()
        self.served.stop()


def _deleting(workspace: str) -> ApiError:
    return ApiError(409, "workspace_deleting", f"workspace {workspace!r} is being deleted", {"workspace": workspace})


class Deleter:
    """One thread that finishes workspace deletes in order; a failed attempt is tried again RETRY_S later, until it
    succeeds or the process stops (the mark stays: the next start finishes it)."""

    def __init__(self, owner: WorkspaceServices) -> None:
        self.owner = owner
        self._queue: queue.Queue[tuple[str, Services | None] | None] = queue.Queue()
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._work, name="graphwire-workspace-deletes", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, workspace: str, released: Services | None = None) -> None:
        """Finish deleting `workspace`; `released`: its services, whose job worker is stopped first."""
        with self._lock:
            queued = workspace in self._pending
            self._pending.add(workspace)
        if not queued:
            self._queue.put((workspace, released))
        elif released is not None:
            released.stop_workspace()

    def pending(self, workspace: str) -> bool:
        with self._lock:
            return workspace in self._pending

    def stop(self) -> None:
        self._stopping.set()
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout=STOP_WAIT_S)

    def _work(self) -> None:
        self._resume()
        while not self._stopping.is_set():
            item = self._queue.get()
            if item is None:
                return
            workspace, released = item
            if released is not None:
                released.stop_workspace()  # a running job stops at its next batch and lets the writer go
            self._finish(workspace)

    def _resume(self) -> None:
        """Queue the deletes a stop or a crash cut short (the served workspace's are left to the CLI: the process
        would delete what it serves)."""
        while not self._stopping.is_set():
            try:
                unfinished = workspace_registry.unfinished_deletes(self.owner.graph())
                break
            except Exception as exc:  # Neo4j not reachable yet: the deletes wait for it
                log.warning("unfinished workspace deletes not read", extra={"error": str(exc)})
                self._stopping.wait(RETRY_S)
        else:
            return
        for workspace in unfinished:
            if workspace == self.owner.name:
                log.warning("the served workspace is marked deleted", extra={"workspace": workspace})
                continue
            log.info("finishing a workspace delete cut short", extra={"workspace": workspace})
            self.submit(workspace)

    def _finish(self, workspace: str) -> None:
        while not self._stopping.is_set():
            try:
                done = self.owner.finish_delete(workspace)
            except Exception as exc:
                log.warning("workspace delete not finished", extra={"workspace": workspace, "error": str(exc)})
                self._stopping.wait(RETRY_S)
                continue
            log.info("workspace deleted", extra={"workspace": workspace, "nodes": done.nodes, "vectors": done.vectors})
            break
        with self._lock:
            self._pending.discard(workspace)
