"""Registry factories for the flat modes (`retrieval.registry` MODES lines point here).

All four modes over one Chroma collection share one chunk store and one in-memory flat index per process.

    ModeSpec("vector", "ChromaDB top-k over the chunks (the vector baseline)", "retrieval.flat.modes:vector_mode", needs_chroma=True)
    ModeSpec("bm25", "BM25 over the same chunks", "retrieval.flat.modes:bm25_mode", needs_chroma=True)
    ModeSpec("fused", "reciprocal-rank fusion of vector and BM25 (k=60)", "retrieval.flat.modes:fused_mode", needs_chroma=True)
    ModeSpec("flat_plus", "fused + named outlets, dates, one pick per outlet and claim", "retrieval.flat.modes:flat_plus_mode", needs_chroma=True)
"""  # noqa: E501

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from core.chroma import open_client
from core.chunk_store import ChunkStore
from core.embeddings import embedder_from_settings
from retrieval.flat import FlatRetriever, build_flat_retrievers

if TYPE_CHECKING:
    from retrieval.registry import RetrievalContext

_SHARED: dict[tuple[str, ...], dict[str, FlatRetriever]] = {}
_LOCK = threading.Lock()


def flat_retrievers(ctx: RetrievalContext) -> dict[str, FlatRetriever]:
    settings = ctx.settings
    key = (
        settings.chroma_host or str(settings.chroma_path.resolve()),
        str(settings.chroma_port if settings.chroma_host else ""),
        settings.chroma_collection,
        settings.embedding_backend.value,
        settings.embedding_model,
    )
    with _LOCK:
        if key not in _SHARED:
            client = ctx.chroma() if ctx.chroma is not None else open_client(settings)
            store = ChunkStore(client, settings.chroma_collection, embedder_from_settings(settings))
            _SHARED[key] = build_flat_retrievers(store, settings)
        return _SHARED[key]


def vector_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["vector"]


def bm25_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["bm25"]


def fused_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["fused"]


def flat_plus_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["flat_plus"]
