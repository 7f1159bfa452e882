"""The ChromaDB client: a persistent folder by default, an HTTP server when CHROMA_HOST is set.

A local (persistent-folder) client keeps an in-memory view of the folder that never sees what other processes write
there afterwards: its vector index misses their chunks and `get` fails with `InternalError: Error finding id`.
`reopened` gives a client that reads the folder as it is now; `core.chunk_store.ChunkStore` calls it when the
collection's revision marker changes under it.
"""

from __future__ import annotations

from typing import Any

import chromadb
from chromadb.config import Settings as ChromaSettings

from graphwire.core.settings import Settings


def open_client(settings: Settings) -> Any:
    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_host:
        return chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings)
    settings.chroma_path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.chroma_path), settings=chroma_settings)


def reopened(client: Any) -> Any:
    """A client that sees the folder as it is now (local clients); a server's client is returned as it is.

    Chroma shares one in-memory system per folder in a process; it is dropped from that cache, not stopped, so that
    requests still reading through the old client finish (it is freed once nothing holds it)."""
    chroma_settings = client.get_settings()
    if not chroma_settings.is_persistent:
        return client
    from chromadb.api.shared_system_client import SharedSystemClient

    path = str(chroma_settings.persist_directory)
    SharedSystemClient._identifier_to_system.pop(path, None)
    return chromadb.PersistentClient(path=path, settings=ChromaSettings(anonymized_telemetry=False))
