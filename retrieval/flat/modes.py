"""Registry factories for the flat modes (`retrieval.registry` MODES lines point here).

All four modes share the context's one chunk store and one in-memory flat index (`RetrievalContext.flat_retrievers`).

    ModeSpec("vector", "ChromaDB top-k over the chunks (the vector baseline)", "graphwire.retrieval.flat.modes:vector_mode", needs_chroma=True)
    ModeSpec("bm25", "BM25 over the same chunks", "graphwire.retrieval.flat.modes:bm25_mode", needs_chroma=True)
    ModeSpec("fused", "reciprocal-rank fusion of vector and BM25 (k=60)", "graphwire.retrieval.flat.modes:fused_mode", needs_chroma=True)
    ModeSpec("flat_plus", "fused + named outlets, dates, one pick per outlet and claim", "graphwire.retrieval.flat.modes:flat_plus_mode", needs_chroma=True)
"""  # noqa: E501

from __future__ import annotations

from typing import TYPE_CHECKING

from graphwire.retrieval.flat import FlatRetriever

if TYPE_CHECKING:
    from graphwire.retrieval.registry import RetrievalContext


def flat_retrievers(ctx: RetrievalContext) -> dict[str, FlatRetriever]:
    """The context's flat retrievers: one chunk store and one in-memory flat index for all four modes."""
    return ctx.flat_retrievers()


def vector_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["vector"]


def bm25_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["bm25"]


def fused_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["fused"]


def flat_plus_mode(ctx: RetrievalContext) -> FlatRetriever:
    return flat_retrievers(ctx)["flat_plus"]
