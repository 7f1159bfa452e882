"""Flat retrieval over the chunk store: the vector baseline, BM25, their fusion and the flat+ stack."""

from __future__ import annotations

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.settings import Settings
from graphwire.retrieval.flat.common import Guidance, GuidanceMode
from graphwire.retrieval.flat.dense import DenseRetriever
from graphwire.retrieval.flat.index import FlatIndex, ScopedFlatIndex
from graphwire.retrieval.flat.lexical import BM25Retriever, FusedRetriever
from graphwire.retrieval.flat.plus import FlatPlusConfig, FlatPlusRetriever
from graphwire.retrieval.scope import Scope
from graphwire.schema.model import GraphSchema, load_schema

FlatRetriever = DenseRetriever | BM25Retriever | FusedRetriever | FlatPlusRetriever

__all__ = [
    "BM25Retriever",
    "DenseRetriever",
    "FlatRetriever",
    "FlatIndex",
    "FlatPlusConfig",
    "FlatPlusRetriever",
    "FusedRetriever",
    "Guidance",
    "GuidanceMode",
    "build_flat_retrievers",
    "flat_retrievers_from_settings",
    "scoped_flat_retrievers",
]


def build_flat_retrievers(
    store: ChunkStore, settings: Settings, schema: GraphSchema, index: FlatIndex | None = None
) -> dict[str, FlatRetriever]:
    """Every flat retriever over one store, sharing one in-memory index; keyed by mode name. With `index` (a
    restricted reader's view, retrieval/scope.py), that index, which `vector` also searches instead of Chroma's."""
    exact = index is not None
    index = index or FlatIndex(store, bm25_k1=settings.bm25_k1, bm25_b=settings.bm25_b)
    retrievers: list[FlatRetriever] = [
        DenseRetriever(store, index if exact else None),
        BM25Retriever(index),
        FusedRetriever(index, store.embedder),
        FlatPlusRetriever(index, store.embedder, schema=schema),
    ]
    return {r.name: r for r in retrievers}


def flat_retrievers_from_settings(settings: Settings) -> dict[str, FlatRetriever]:
    return build_flat_retrievers(ChunkStore.from_settings(settings), settings, load_schema(settings.schema_path))


def scoped_flat_retrievers(
    shared: dict[str, FlatRetriever], settings: Settings, schema: GraphSchema, scope: Scope
) -> dict[str, FlatRetriever]:
    """A restricted reader's flat retrievers (retrieval/scope.py): over the shared chunk store and a view of the
    shared flat index holding only `scope`'s chunks, which `vector` searches exactly."""
    lexical, dense = shared["bm25"], shared["vector"]
    if not isinstance(lexical, BM25Retriever) or not isinstance(dense, DenseRetriever):
        raise TypeError("the shared flat retrievers are not BM25 and dense ones")
    index = ScopedFlatIndex(lexical.index, scope.chunks, scope.key)
    return build_flat_retrievers(dense.store, settings, schema, index=index)
