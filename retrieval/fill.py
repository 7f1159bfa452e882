"""Fill a mode's ranking up to `top_k` from a second mode, each chunk marked with the mode that retrieved it.

The five-stage graph retriever is sure of the chunks its facts rest on; the other chunks it ranks only mention a
matched entity, and it often has fewer than asked for (none when no entity matched). So the ranking is: chunks behind
the primary's facts (in its order), then the fill mode's (PPR, or `auto`, which picks per question), then the
primary's other chunks. Facts, entities, excerpts and the abstention reason stay the primary's: answerers see what
the graph found. The fill mode never runs the primary (GRAPH_FILL_MODE offers only modes that do not), so each stage
runs once per request. The `ppr_bm25` fill is `RankFusion` of PPR and BM25: neither embeds the question
(bench/graph_fill.md measures it against the default, `fused`). `graph_mode` builds `mode=graph` for the registry.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from graphwire.core.concurrency import Beside
from graphwire.core.settings import GraphFillMode
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.flat.fusion import RRF_K
from graphwire.retrieval.models import RankedChunk, RetrievalResult

if TYPE_CHECKING:
    from graphwire.retrieval.registry import RetrievalContext


class Pass(Protocol):
    joint: RetrievalResult
    graph: RetrievalResult


@runtime_checkable
class RunsPrimary(Protocol):
    """A fill mode that runs the primary itself (joint runs the graph retriever): one call returns both results."""

    def run(self, question: str, top_k: int = 10) -> Pass: ...


class FilledRetriever:
    def __init__(self, primary: Retriever, fill: Retriever) -> None:
        self.primary = primary
        self.fill = fill
        self.name = primary.name

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        shared = self.fill.run(question, top_k) if isinstance(self.fill, RunsPrimary) else None
        # A fill of its own runs beside the primary (which mostly waits on Neo4j); its result is read only when the
        # primary's fact chunks fall short of top_k.
        beside = None if shared is not None else Beside(lambda: self.fill.retrieve(question, top_k), name="fill")
        result = shared.graph if shared is not None else self.primary.retrieve(question, top_k)
        backed = {cid for fact in result.facts for cid in fact.chunk_ids}
        head = [c for c in result.chunks if c.chunk_id in backed]
        tail = [c for c in result.chunks if c.chunk_id not in backed]
        ranked = [_marked(c, self.primary.name) for c in head]
        filled = 0
        if len(ranked) < top_k:
            extra = beside.result() if beside is not None else cast(Pass, shared).joint
            by = str(extra.details.get("router", {}).get("mode", extra.mode))
            have = {c.chunk_id for c in ranked}
            for chunk in extra.chunks:
                if len(ranked) >= top_k:
                    break
                if chunk.chunk_id not in have:
                    have.add(chunk.chunk_id)
                    ranked.append(_marked(chunk, by))
                    filled += 1
            for stage, ms in extra.timings_ms.items():
                if not stage.startswith(f"{self.primary.name}."):  # the primary's own stages are already there
                    result.timings_ms[f"fill_{stage}"] = ms
            ranked += [_marked(c, self.primary.name) for c in tail if c.chunk_id not in have]
        result.details["fill"] = {"mode": self.fill.name, "chunks": filled, "fact_chunks": len(head)}
        return result.model_copy(update={"chunks": ranked[:top_k]})


def _marked(chunk: RankedChunk, mode: str) -> RankedChunk:
    return chunk if chunk.retrieved_by else chunk.model_copy(update={"retrieved_by": mode})


def unfilled(retriever: Retriever) -> Retriever:
    """The primary mode of a filled one (hybrid fuses the graph's own ranking, not its fill)."""
    return retriever.primary if isinstance(retriever, FilledRetriever) else retriever


class RankFusion:
    """Reciprocal-rank fusion of several modes' rankings, each read `depth` times `top_k` deep; the modes run at once
    (the first on the caller's thread). A chunk is marked with the mode that ranked it best."""

    def __init__(self, name: str, retrievers: list[Retriever], depth: int = 3) -> None:
        self.name = name
        self.retrievers = retrievers
        self.depth = depth

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        deep = top_k * self.depth
        others = [Beside(partial(r.retrieve, question, deep), name="fusion") for r in self.retrievers[1:]]
        results = [self.retrievers[0].retrieve(question, deep), *(other.result() for other in others)]
        scores: dict[str, float] = {}
        best: dict[str, tuple[int, RankedChunk]] = {}
        for result in results:
            for rank, chunk in enumerate(result.chunks, start=1):
                scores[chunk.chunk_id] = scores.get(chunk.chunk_id, 0.0) + 1.0 / (RRF_K + rank)
                if chunk.chunk_id not in best or rank < best[chunk.chunk_id][0]:
                    best[chunk.chunk_id] = (rank, _marked(chunk, result.mode))
        ranked = sorted(scores, key=lambda chunk_id: -scores[chunk_id])[:top_k]
        chunks = [best[chunk_id][1].model_copy(update={"score": scores[chunk_id]}) for chunk_id in ranked]
        timings = {f"{r.mode}.{stage}": ms for r in results for stage, ms in r.timings_ms.items()}
        return RetrievalResult(mode=self.name, chunks=chunks, timings_ms=timings)


def graph_mode(ctx: RetrievalContext) -> Retriever:
    """The five-stage retriever, filled to top_k from GRAPH_FILL_MODE; filled from joint, it is joint's own graph
    retriever, read from the same pass."""
    from graphwire.retrieval.graph import GraphRetriever

    fill = GraphFillMode(ctx.settings.graph_fill_mode)
    if fill is GraphFillMode.JOINT:
        from graphwire.retrieval.joint import JointRetriever

        joint = ctx.retriever("joint")
        if not isinstance(joint, JointRetriever):
            raise TypeError("GRAPH_FILL_MODE=joint needs the joint retriever")
        return FilledRetriever(joint.graph, joint)
    graph = GraphRetriever.from_settings(ctx.require_graph(), ctx.settings, services=ctx.services())
    if fill is GraphFillMode.NONE:
        return graph
    if fill is GraphFillMode.PPR_BM25:
        return FilledRetriever(graph, RankFusion(fill.value, [ctx.retriever("ppr"), ctx.retriever("bm25")]))
    return FilledRetriever(graph, ctx.retriever(fill.value))
