"""Flat retrieval over the chunk store: the vector baseline, BM25, their fusion and the flat+ stack."""

from __future__ import annotations

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.settings import Settings
from graphwire.retrieval.flat.common import Guidance, GuidanceMode
from graphwire.retrieval.flat.dense import DenseRetriever
from graphwire.retrieval.flat.index import FlatIndex
from graphwire.retrieval.flat.lexical import BM25Retriever, FusedRetriever
from graphwire.retrieval.flat.plus import FlatPlusConfig, FlatPlusRetriever
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
]


def build_flat_retrievers(store: ChunkStore, settings: Settings, schema: GraphSchema) -> dict[str, FlatRetriever]:
    """Every flat retriever over one store, sharing one in-memory index; keyed by mode name."""
    index = FlatIndex(store, bm25_k1=settings.bm25_k1, bm25_b=settings.bm25_b)
    retrievers: list[FlatRetriever] = [
        DenseRetriever(store),
        BM25Retriever(index),
        FusedRetriever(index, store.embedder),
        FlatPlusRetriever(index, store.embedder, schema=schema),
    ]
    return {r.name: r for r in retrievers}


def flat_retrievers_from_settings(settings: Settings) -> dict[str, FlatRetriever]:
    return build_flat_retrievers(ChunkStore.from_settings(settings), settings, load_schema(settings.schema_path))
