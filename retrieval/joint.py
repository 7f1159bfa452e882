"""`mode=joint`: dense, lexical and graph evidence in one ranking, one pass per request (the default mode).

Every signal scores the same chunks; which graph evidence leads depends on what the question names:
- A question that names what a document is about (a title entity: encyclopedia pages) gets reciprocal-rank fusion of
  `flat` (the flat+ ranking: dense + BM25 + named outlets, dates, one pick per outlet and claim), `lexical` (BM25
  alone), `entity_walk` (Personalized PageRank from the question's linked entities) and `passage_walk` (PPR from the
  passages dense similarity ranks first, as HippoRAG 2 does: the walk starts from what dense retrieval knows and adds
  the bridge passage that shares an entity with them but few words with the question), `title` (each compared
  thing's own page, when the question compares two or more titled things it names: retrieval/alignment.py), and
  `linked`: the pages the first-ranked passage of that fusion links to (whose title entity it mentions), in flat+'s
  order, fused in a second time (the bridge page reached through the page the question names).
- A question that names no title entity (news; a page described, not named) gets flat+ guided by the five-stage
  graph retriever's chunk ranking (its KEY/BRIDGE/DIRECT facts, publications and dates), as one more reciprocal-rank
  signal beside dense and BM25, ranked twice: the bridge entity of the first ranking's top chunks (retrieval/bridge.py)
  joins the second ranking's outlet and claim picks and, for a question asking for something, the order of its first
  chunks (each claim ranked among the chunks naming the bridge); then `linked`, as above, when its first chunk links
  anywhere.

The question is embedded once (as are flat+'s clauses, each on its own); the graph retriever runs once and its facts,
excerpts and analysis are the result's, so graph mode reads its own result from the same pass (`run`). An optional
diversity rule holds back further chunks of a document already ranked. Weights and the evidence for each choice:
bench/joint_tune.md. Lower-case phrases the corpus writes as common words are not linked as entities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from graphwire.core import tracing
from graphwire.core.concurrency import Beside
from graphwire.retrieval.alignment import Alignment, compared_titles
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.bridge import BridgeEntity, bridge_entity, entities_of
from graphwire.retrieval.flat.common import ranked_chunks
from graphwire.retrieval.flat.fusion import descending_order, ranks_of
from graphwire.retrieval.flat.index import IndexSnapshot, Scores
from graphwire.retrieval.flat.plus import FlatPlusConfig, FlatPlusRetriever, PlusFeatures
from graphwire.retrieval.hybrid import HybridConfig
from graphwire.retrieval.joint_fusion import diverse_order, fuse, linked_names, signal_ranks, spread_head
from graphwire.retrieval.models import EntityMatch, RankedChunk, RetrievalResult
from graphwire.retrieval.ppr.engine import WalkGraph
from graphwire.retrieval.ppr.retriever import PPRRetriever, seed_weights, titled_seeds, top_entities
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.retrieval.timing import StageTimer

if TYPE_CHECKING:
    from graphwire.retrieval.registry import RetrievalContext

_POSITIVE = 1e-9  # the least score a signal gives a chunk it reaches

SIGNALS = ("flat", "dense", "lexical", "entity_walk", "passage_walk", "title", "linked")


class JointConfig(BaseModel):
    """Reciprocal-rank weights of the seven signals (questions that name a title entity; `linked` also beside the
    guided flat+ of those that do not), the graph guidance of flat+, the walk's passage seeds and the diversity rule.
    Chosen by bench/joint_tune.py; the evidence is in bench/joint_tune.md and bench/linked_pages.md."""

    flat_weight: float = Field(default=1.0, ge=0.0)
    dense_weight: float = Field(default=0.25, ge=0.0)
    lexical_weight: float = Field(default=0.5, ge=0.0)
    entity_walk_weight: float = Field(default=0.25, ge=0.0)
    passage_walk_weight: float = Field(default=0.5, ge=0.0)
    # the pages of the title entities a comparing question names ("Are X and Y both ...?", "X or Y?"): each compared
    # thing's own page, ahead of the pages that only mention it (bench/title_pages.md)
    title_weight: float = Field(default=1.0, ge=0.0)
    # the pages the first-ranked passages link to (whose title entity they mention), in flat+'s order: the bridge
    # page a question reaches through the page it names (bench/linked_pages.md)
    linked_weight: float = Field(default=1.0, ge=0.0)
    linked_from: int = Field(default=1, ge=0)  # how many of the first fused ranking's chunks are followed (0 = off)
    guidance: HybridConfig = Field(default_factory=HybridConfig)  # how the graph's chunk ranking guides flat+
    passage_seeds: int = Field(default=20, ge=1)  # dense top passages that seed the passage walk
    rrf_k: int = Field(default=60, ge=1)
    # chunks of one document before every other candidate had a place; 0 = off (on news, where one article often
    # holds two gold facts, 3 cost Perfect@10: bench/joint_tune.md)
    per_document: int = Field(default=0, ge=0)
    # the first places that show several documents: each prefix of them at most half (rounded up) one document's
    # chunks, reordering the ranking's own chunks only (bench/spread_head_multihop-rag.md); 0 = off
    spread_head: int = Field(default=4, ge=0)
    # top chunks of flat+'s first ranking that name the bridge entity for its second (questions without a title
    # entity; 0 = one ranking, no bridge feedback: retrieval/bridge.py)
    bridge_depth: int = Field(default=10, ge=0)

    def weights(self) -> dict[str, float]:  # flat+ guided by the graph (no title entity named) weighs as `flat`
        weights = {name: float(getattr(self, f"{name}_weight")) for name in SIGNALS}
        return weights | {"graph_guided_flat": weights["flat"]}


@dataclass
class JointPass:
    """One request's work: the joint ranking and the five-stage graph retriever's own result (facts, excerpts)."""

    joint: RetrievalResult
    graph: RetrievalResult


class JointRetriever:
    name = "joint"

    def __init__(
        self, flat: FlatPlusRetriever, ppr: PPRRetriever, graph: Retriever, config: JointConfig | None = None
    ) -> None:
        self.flat = flat
        self.ppr = ppr
        self.graph = graph  # the five-stage retriever, unfilled
        self.config = config or JointConfig()
        self._alignment: Alignment | None = None

    def align(self, flat: IndexSnapshot, walk: GraphSnapshot) -> Alignment:
        alignment = self._alignment
        if alignment is None or alignment.flat is not flat or alignment.walk is not walk:
            alignment = self._alignment = Alignment.of(flat, walk)
        return alignment

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        return self.run(question, top_k).joint

    def run(self, question: str, top_k: int = 10) -> JointPass:
        """The joint ranking and the graph retriever's result, each stage run once (graph mode reads both)."""
        timer = StageTimer()
        # The five-stage retriever mostly waits on Neo4j while the question is embedded: both run at once.
        depth = max(top_k, self.config.guidance.graph_depth)

        def graph_stage() -> RetrievalResult:
            with tracing.span("stage graph", {"graphwire.stage": "graph"}):  # the timer's span, on this thread
                return self.graph.retrieve(question, depth)

        graph_pass = Beside(graph_stage, name="joint-graph")
        with timer.stage("index"):
            snapshot = self.flat.index.snapshot()
        if len(snapshot):
            ranked, details = self._ranking(question, top_k, snapshot, graph_pass, timer)
        else:  # no chunk in the vector store (a graph ingested without vectors): PageRank alone ranks the passages
            with timer.stage("walk"):
                walked = self.ppr.retrieve(question, top_k)
            ranked = [c.model_copy(update={"retrieved_by": self.ppr.name}) for c in walked.chunks]
            details = {"ranking": "ppr (the vector store holds no chunk)", "seeds": walked.details.get("seeds", 0)}
        with timer.stage("graph_wait"):
            graph = graph_pass.result()
        timings = (
            timer.finish()
            | {"graph": graph.timings_ms.get("total", 0.0)}
            | {f"graph.{k}": v for k, v in graph.timings_ms.items()}
        )
        matches: list[EntityMatch] = details.pop("matches", [])
        joint = RetrievalResult(
            mode=self.name,
            chunks=_with_graph_chunks(ranked, graph, top_k),
            facts=graph.facts,
            entities=graph.entities or matches,
            analysis=graph.analysis,
            excerpts=graph.excerpts,
            abstain_reason=graph.abstain_reason,
            timings_ms=timings,
            details={**graph.details, **details},
        )
        return JointPass(joint=joint, graph=graph)

    def _ranking(
        self, question: str, top_k: int, snapshot: IndexSnapshot, graph: Beside[RetrievalResult], timer: StageTimer
    ) -> tuple[list[RankedChunk], dict[str, Any]]:
        config = self.config
        with timer.stage("index"):
            walk = self.ppr.walk()
            alignment = self.align(snapshot, walk.snapshot)
        features = self.flat.features(question, snapshot, timer)
        with timer.stage("seeds"):
            matches = linked_names(self.ppr.match(walk.snapshot, question), snapshot.word_case)
            entity_seeds = seed_weights(walk.snapshot, matches)
            titled = titled_seeds(walk.snapshot, entity_seeds)
        details: dict[str, Any] = {
            "seeds": len(entity_seeds),
            "titled_seeds": titled,
            "matches": matches,
            "bridge": None,
            "linked_pages": 0,
        }
        if titled:
            scores, signals, ranks = self._walks(features, walk, alignment, entity_seeds, timer, details)
        else:
            with timer.stage("graph_wait"):
                graph_chunks = graph.result().chunks
            with timer.stage("flat"):
                graph_ids = [c.chunk_id for c in graph_chunks]
                scores, bridge = self.guided_flat(question, features, graph_ids, alignment, top_k)
            details["bridge"] = bridge.name if bridge else None
            signals = {"graph_guided_flat": scores}
            ranks = signal_ranks(signals)
            with timer.stage("fuse"):  # an encyclopedia question naming no title: its first page's links too
                scores = self._with_linked(scores, scores, alignment, signals, ranks, details)
        with timer.stage("order"):
            # the documents of all chunks only when the diversity rule needs them (it is off by default)
            document_ids = [chunk.document_id for chunk in snapshot.chunks] if config.per_document else []
            positions = diverse_order(scores, document_ids, top_k, config.per_document)
            documents = [snapshot.chunks[p].document_id for p in positions]
            positions = spread_head(positions, documents, config.spread_head)
        details["ranking"] = "walks" if titled else "graph_guided_flat"
        details["signals"] = _contributions(signals, positions, ranks)
        details["publications"] = [m.name for m in features.analysis.publications]
        return ranked_chunks(snapshot, positions, scores), details

    def _walks(
        self,
        features: PlusFeatures,
        walk: WalkGraph,
        alignment: Alignment,
        entity_seeds: dict[int, float],
        timer: StageTimer,
        details: dict[str, Any],
    ) -> tuple[Scores, dict[str, Scores], dict[str, npt.NDArray[np.int64]]]:
        """flat+, BM25 and the two walks fused, with each signal's ranks: for questions that name what a document is
        about."""
        engine = self.ppr.engine(walk)
        passage_seeds = self._passage_seeds(features.dense, alignment)
        with timer.stage("walk"):
            entity_run = engine.run(entity_seeds, {})
            passage_run = engine.run({}, passage_seeds) if passage_seeds else None
        with timer.stage("flat"):
            snapshot = alignment.flat
            _, flat_scores = self.flat.rank(snapshot, features, len(snapshot))
        signals = {
            "flat": flat_scores,
            "dense": features.dense,
            "lexical": features.lexical,
            "entity_walk": alignment.on_flat(entity_run.chunk_scores),
            "passage_walk": alignment.on_flat(passage_run.chunk_scores) if passage_run else np.zeros(len(snapshot)),
            "title": alignment.titled_by(compared_titles(features.analysis, walk.snapshot, entity_seeds)),
        }
        with timer.stage("fuse"):
            ranks = signal_ranks(signals)
            fused = fuse(signals, self.config.weights(), self.config.rrf_k, ranks)
            # a bridge question's first-ranked passage points at its next page (a comparing one has its pages)
            if not signals["title"].any():
                fused = self._with_linked(fused, flat_scores, alignment, signals, ranks, details)
        details["passage_seeds"] = len(passage_seeds)
        details["top_entities"] = top_entities(walk.snapshot, entity_run.entity_scores)
        return fused, signals, ranks

    def _with_linked(
        self,
        fused: Scores,
        flat: Scores,
        alignment: Alignment,
        signals: dict[str, Scores],
        ranks: dict[str, npt.NDArray[np.int64]],
        details: dict[str, Any],
    ) -> Scores:
        """`fused` ranked again with the `linked` signal beside `signals` (their ranks stand), when the first-ranked
        chunks link to any page; `signals` and `ranks` gain it."""
        linked = self._linked(fused, flat, alignment)
        details["linked_pages"] = int(np.count_nonzero(linked))
        if not linked.any():
            return fused
        signals["linked"], ranks["linked"] = linked, ranks_of(linked)
        return fuse(signals, self.config.weights(), self.config.rrf_k, ranks)

    def _linked(self, fused: Scores, flat: Scores, alignment: Alignment) -> Scores:
        """The pages the first `linked_from` chunks of the fused ranking link to, scored by flat+ (dense similarity,
        BM25 and the question's parts; kept above 0 so each linked page ranks, unless flat+ may not rank it); 0
        elsewhere."""
        depth = min(self.config.linked_from, len(fused))
        if depth <= 0 or self.config.linked_weight <= 0:
            return np.zeros(len(fused), dtype=np.float64)
        top = descending_order(fused)[:depth]
        pages = alignment.linked_from(top)
        return np.where((pages > 0) & np.isfinite(flat), np.maximum(flat, _POSITIVE), 0.0)

    def guided_flat(
        self,
        question: str,
        features: PlusFeatures,
        graph_ids: list[str],
        alignment: Alignment,
        top_k: int = 10,
        flat_config: FlatPlusConfig | None = None,
    ) -> tuple[Scores, BridgeEntity | None]:
        """flat+ guided by the graph retriever's chunk ranking (`graph_ids`, best first); ranked a second time with
        the bridge entity's signal in its picks when the first ranking shows one (retrieval/bridge.py)."""
        snapshot = alignment.flat
        found: list[BridgeEntity] = []

        def bridge_signal(first: Scores) -> Scores | None:
            bridge = self._bridge(question, first, alignment)
            if bridge is None:
                return None
            found.append(bridge)
            return snapshot.bm25_scores(self.flat.index.tokenizer(bridge.name))

        guidance = self.config.guidance.guidance(graph_ids)
        _, scores = self.flat.rank(snapshot, features, top_k, guidance, flat_config, bridge=bridge_signal)
        return scores, found[0] if found else None

    def _bridge(self, question: str, scores: Scores, alignment: Alignment) -> BridgeEntity | None:
        """The bridge entity of the first ranking's top `bridge_depth` chunks (None when feedback is off)."""
        depth = min(self.config.bridge_depth, len(scores))
        if depth <= 0:
            return None
        top = descending_order(scores)[:depth]
        walk = alignment.walk
        entities = entities_of(walk.mentions, alignment.walk_of_flat[top].tolist())
        documents = [alignment.flat.chunks[p].document_id for p in top]
        return bridge_entity(question, entities, documents, walk.entity_names)

    def _passage_seeds(self, dense: Scores, alignment: Alignment) -> dict[int, float]:
        count = min(self.config.passage_seeds, len(dense))
        if count <= 0:
            return {}
        best = np.argpartition(-dense, count - 1)[:count]
        walk_index = alignment.walk_of_flat[best]
        return {int(w): float(dense[p]) for p, w in zip(best, walk_index, strict=True) if w >= 0 and dense[p] > 0}


def _with_graph_chunks(ranked: list[RankedChunk], graph: RetrievalResult, top_k: int) -> list[RankedChunk]:
    """The ranking, topped up with the graph retriever's chunks where the chunk store holds fewer than top_k of
    them (an empty or partial vector store: a graph ingested without vectors still answers with its chunks)."""
    if len(ranked) >= top_k:
        return ranked
    have = {chunk.chunk_id for chunk in ranked}
    extra = [c.model_copy(update={"retrieved_by": "graph"}) for c in graph.chunks if c.chunk_id not in have]
    return ranked + extra[: top_k - len(ranked)]


def _contributions(
    signals: dict[str, Scores], positions: list[int], ranks: dict[str, npt.NDArray[np.int64]]
) -> dict[str, int]:
    """How many returned chunks each signal ranks within its own top `len(positions)` (what each side brought)."""
    depth = len(positions)
    out: dict[str, int] = {}
    for name, scores in signals.items():
        own = ranks.get(name)
        out[name] = 0 if own is None else sum(1 for p in positions if scores[p] > 0 and own[p] <= depth)
    return out


def joint_mode(ctx: RetrievalContext) -> JointRetriever:
    """Over the context's flat+ and PPR instances and a five-stage retriever of its own on the shared services (graph
    mode fills from joint, so joint cannot ask the registry for graph mode)."""
    from graphwire.retrieval.graph import GraphRetriever

    flat = ctx.retriever("flat_plus")
    ppr = ctx.retriever("ppr")
    if not isinstance(flat, FlatPlusRetriever) or not isinstance(ppr, PPRRetriever):
        raise TypeError("joint needs the flat+ and PPR retrievers")
    graph = GraphRetriever.from_settings(ctx.require_graph(), ctx.settings, services=ctx.services())
    return JointRetriever(flat, ppr, graph)
