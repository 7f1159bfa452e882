"""`mode=hybrid`: graph-guided flat search.

The graph retriever (stages 1-4) ranks the chunks behind its KEY/BRIDGE/DIRECT facts and the chunks that mention the
matched entities, publications and dates; that ranking joins the flat+ stack (dense + BM25 + outlet/date/claim picks)
as one more reciprocal-rank signal (boost), or restricts it (restrict). The result keeps the graph's facts and matched
entities, and `details["contribution"]` says which returned chunks each side brought.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from graphwire.core.concurrency import Beside
from graphwire.core.settings import default_of
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.fill import unfilled
from graphwire.retrieval.flat.common import Guidance, GuidanceMode
from graphwire.retrieval.flat.plus import FlatPlusRetriever
from graphwire.retrieval.models import RetrievalResult

if TYPE_CHECKING:
    from graphwire.retrieval.registry import RetrievalContext


class HybridConfig(BaseModel):
    guidance_mode: GuidanceMode = default_of("hybrid_guidance_mode")
    # weight of the graph's ranking beside dense and BM25 (each weight 1) in the fusion
    guidance_weight: float = default_of("hybrid_guidance_weight")
    graph_depth: int = default_of("hybrid_graph_depth")  # how many graph-ranked chunks guide the flat stack

    def guidance(self, graph_chunk_ids: Sequence[str]) -> Guidance | None:
        """The first `graph_depth` chunks the graph ranked, as guidance for flat+ (None when it ranked none)."""
        ids = list(graph_chunk_ids[: self.graph_depth])
        return Guidance(chunk_ids=ids, mode=self.guidance_mode, weight=self.guidance_weight) if ids else None


class HybridRetriever:
    name = "hybrid"

    def __init__(self, graph_retriever: Retriever, flat: FlatPlusRetriever, config: HybridConfig | None = None) -> None:
        self.graph_retriever = graph_retriever
        self.flat = flat
        self.config = config or HybridConfig()

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        started = time.perf_counter()
        # The graph retriever mostly waits on Neo4j while flat+ embeds the question's texts: both run at once, and
        # flat+ waits for the graph's ranking only to rank.
        graph_pass = Beside(
            lambda: self.graph_retriever.retrieve(question, top_k=self.config.graph_depth), name="hybrid-graph"
        )
        flat_result = self.flat.retrieve_awaiting(
            question, top_k, lambda: self.config.guidance([c.chunk_id for c in graph_pass.result().chunks])
        )
        graph_result = graph_pass.result()
        graph_ids = [chunk.chunk_id for chunk in graph_result.chunks]
        timings = {f"graph.{k}": v for k, v in graph_result.timings_ms.items()}
        timings |= {f"flat.{k}": v for k, v in flat_result.timings_ms.items()}
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        returned = [chunk.chunk_id for chunk in flat_result.chunks]
        from_graph = set(graph_ids)
        details = dict(graph_result.details)
        details["flat"] = flat_result.details
        details["contribution"] = {
            "graph_chunks": len(graph_ids),
            "returned_from_graph": sum(1 for cid in returned if cid in from_graph),
            "returned_flat_only": sum(1 for cid in returned if cid not in from_graph),
            "guidance": self.config.guidance_mode.value if graph_ids else "none (no graph match)",
        }
        return RetrievalResult(
            mode=self.name,
            chunks=flat_result.chunks,
            facts=graph_result.facts,
            entities=graph_result.entities,
            analysis=graph_result.analysis,
            excerpts=graph_result.excerpts,
            abstain_reason=graph_result.abstain_reason,
            timings_ms=timings,
            details=details,
        )


def hybrid_mode(ctx: RetrievalContext) -> HybridRetriever:
    flat = ctx.retriever("flat_plus")
    if not isinstance(flat, FlatPlusRetriever):
        raise TypeError("hybrid needs the flat+ retriever")
    settings = ctx.settings
    config = HybridConfig(
        guidance_mode=GuidanceMode(settings.hybrid_guidance_mode),
        guidance_weight=settings.hybrid_guidance_weight,
        graph_depth=settings.hybrid_graph_depth,
    )
    return HybridRetriever(unfilled(ctx.retriever("graph")), flat, config)
