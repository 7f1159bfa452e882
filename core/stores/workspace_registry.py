"""The workspaces of a store, the one door of creating, listing, describing and deleting them (the CLI's `graphwire
workspace`, the API's /v1/workspaces; docs/security.md#workspaces).

A workspace exists from its creation (`create`) or its first write (every `WriteSession` enters it) until it is
deleted; `default` always exists. Its registry entry is a `Workspace` node in Neo4j, beside what it holds.

Deleting is a resumable job of bounded steps: the entry is marked `deleting` first (no writer opens on it from then
on), then the workspace's nodes go in bounded transactions under its writer, then its Chroma collections, ingest
state (document jobs included) and caches, and the entry last. A delete cut short (a killed process, Neo4j gone) is
finished by running it again; the API finishes every marked one as it starts (`unfinished_deletes`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import empty_graph
from graphwire.core.stores.store_holder import StoreBusyError
from graphwire.core.workspaces import DEFAULT_WORKSPACE, checked

DELETE_BATCH = 10_000  # relationships, then nodes, per delete transaction
KINDS = ("documents", "chunks", "entities")


class WorkspaceInfo(BaseModel):
    """A workspace as the registry lists and describes it."""

    name: str
    state: str = Field(description="`ready`, or `deleting` while a delete is under way (or was cut short).")
    documents: int
    chunks: int
    entities: int
    relationships: int | None = Field(default=None, description="Between entities; only when one is described.")
    created_at: str | None = Field(default=None, description="None for `default` and for a workspace written "
                                   "before the registry.")  # fmt: skip
    created_by: str | None = None
    deleting_since: str | None = None


class WorkspaceDeletingError(StoreBusyError):
    """The workspace is being deleted: nothing may write into it until the delete has finished."""

    def __init__(self, workspace: str) -> None:
        self.store, self.holder, self.workspace = workspace, None, workspace
        RuntimeError.__init__(
            self,
            f"workspace {workspace!r} is being deleted; nothing can be written into it (a delete cut short is "
            f"finished by `graphwire workspace delete {workspace} --yes`, or by the API as it starts)",
        )


@dataclass(frozen=True)
class DeleteResult:
    workspace: str
    nodes: int
    vectors: int


def register(graph: Graph, by: str) -> tuple[bool, bool]:
    """Enter the graph's workspace in the registry (nothing when it is there): (created now, being deleted)."""
    row = graph.write("store/register_workspace", by=by)[0]
    return bool(row["created"]), bool(row["deleting"])


def create(graph: Graph, by: str) -> bool:
    """Create the graph's workspace; False when it existed. A workspace being deleted cannot be created again until
    the delete has finished (`WorkspaceDeletingError`)."""
    created, deleting = register(graph, by)
    if deleting:
        raise WorkspaceDeletingError(graph.workspace)
    return created


def state(graph: Graph) -> tuple[bool, bool]:
    """(exists, being deleted) for the graph's workspace; `default` always exists."""
    row = graph.read("store/workspace_state")[0]
    return bool(row["exists"]) or graph.workspace == DEFAULT_WORKSPACE, bool(row["deleting"])


def entries(graph: Graph) -> list[WorkspaceInfo]:
    """Every workspace of the store with its counts, by name; `default` is listed even when empty."""
    found = [_info(row["workspace"], dict(row["counts"]), row) for row in graph.read("store/workspaces")]
    if DEFAULT_WORKSPACE not in {info.name for info in found}:
        found.append(_info(DEFAULT_WORKSPACE, {}, {}))
    return sorted(found, key=lambda info: info.name)


def describe(graph: Graph) -> WorkspaceInfo | None:
    """The graph's workspace with its counts (relationships too), or None when it does not exist."""
    row = graph.read("store/workspace_entry")[0]
    counts = {kind: row[kind] for kind in KINDS}
    if not row["registered"] and not any(counts.values()) and graph.workspace != DEFAULT_WORKSPACE:
        return None
    return _info(graph.workspace, counts, row).model_copy(update={"relationships": row["relationships"]})


def _info(name: str, counts: dict[str, int], row: Any) -> WorkspaceInfo:
    """`row`: a record with the registry entry's fields (none of them for a workspace without one)."""
    since = row.get("deleting_since")
    return WorkspaceInfo(
        name=name,
        state="deleting" if since else "ready",
        **{kind: int(counts.get(kind, 0)) for kind in KINDS},
        created_at=row.get("created_at"),
        created_by=row.get("created_by"),
        deleting_since=since,
    )


def mark_deleting(graph: Graph, by: str) -> str:
    """The first step of a delete: from now on the workspace says it is being deleted; returns since when."""
    return str(graph.write("store/mark_workspace_deleting", by=by)[0]["deleting_since"])


def unfinished_deletes(graph: Graph) -> list[str]:
    """The workspaces whose delete was begun and not finished."""
    return [row["workspace"] for row in graph.read("store/deleting_workspaces")]


def delete(
    settings: Settings,
    graph: Graph,
    chroma: Callable[[], Any],
    *,
    keep_entry: bool = False,
    by: str = "graphwire",
    wait_s: float = 0.0,
) -> DeleteResult:
    """Delete the workspace of `settings` (`graph` is its view): mark it, then empty it under its writer (a
    `WriteSession` named `by`, waiting up to `wait_s`; a busy store raises `StoreBusyError`, the mark stays and a later
    run finishes the job), then its vectors, ingest state and caches; last the entry, unless `keep_entry` (`graphwire
    db reset`: the workspace stays, empty, and a workspace being deleted refuses it). Running it again after any
    failure finishes it."""
    from graphwire.core.stores.write_session import WriteSession  # it enters workspaces here: a cycle at import

    checked(settings.workspace)
    if not keep_entry:
        mark_deleting(graph, by)
    session = WriteSession(settings, lambda: graph, by, stamp=False, deleting=not keep_entry).open(wait_s)
    try:
        nodes = empty_graph(graph, DELETE_BATCH)
        vectors = _drop_vectors(chroma(), settings.chroma_collection)
        _remove_files(settings)
    finally:
        session.close()
    if not keep_entry:
        graph.write("store/forget_workspace")
    return DeleteResult(settings.workspace, nodes, vectors)


def _drop_vectors(client: Any, collection: str) -> int:
    from graphwire.core.clients.chunk_store import drop_collections

    return drop_collections(client, collection)


def _remove_files(settings: Settings) -> None:
    """The ingest state folder (document jobs, per-input records); the caches too, except `default`'s, which other
    uses share (the LLM extraction cache outlives a `db reset`)."""
    shutil.rmtree(settings.ingest_state_path, ignore_errors=True)
    if settings.workspace == DEFAULT_WORKSPACE:
        return
    for cache in (settings.extraction_cache_path, settings.vector_cache_path):
        for path in (cache, Path(f"{cache}-wal"), Path(f"{cache}-shm"), Path(f"{cache}-journal")):
            path.unlink(missing_ok=True)
