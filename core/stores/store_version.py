"""The store's version stamp: one `(:StoreVersion {id: 'store'})` node whose `stamp` every writer changes.

A writer calls `bump(graph)` after each change it commits (an ingest batch, a delete, a repair); a reader keeps the
stamp it built its caches at and compares (`read_stamp(graph)`, one index lookup). Unlike the graph's counts, the
stamp also changes when an update leaves every count as it was. The vector store has its own marker, written in the
same steps (`core.chunk_store.ChunkStore.revision`).

    stamp = read_stamp(graph)      # "" for a store no writer has stamped yet
    ...
    if read_stamp(graph) != stamp: # another process (or this one) changed the store: rebuild
"""

from __future__ import annotations

import uuid

from graphwire.core.clients.graph import Graph


def read_stamp(graph: Graph) -> str:
    """The current stamp ("" when the store was never stamped)."""
    rows = graph.read("store/read_version")
    return str(rows[0]["stamp"] or "") if rows else ""


def bump(graph: Graph) -> str:
    """Give the store a new stamp (after a committed change); returns it."""
    stamp = uuid.uuid4().hex
    graph.write("store/bump_version", stamp=stamp)
    return stamp
