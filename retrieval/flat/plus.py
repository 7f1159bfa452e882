"""flat+: the strongest deterministic flat stack (no graph, no LLM).

On top of RRF(dense, BM25):
1. publications named in the question (with outlet aliases) softly boost their chunks; chunks without a source stay
   beside them, because a hard filter loses the unlabelled articles and the questions that need another outlet;
2. chunks whose `published_at` satisfies the question's dates (exact day, month, before/after) are boosted;
3. one pick per named publication mention: the outlet's chunks (plus unlabelled ones) are scored against the whole
   question and against the clause around the outlet's name (and that clause's dates); the best one per mention takes
   the top ranks, in question order. This is what puts the right article of each outlet in the top 4.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from graphwire.core.clients.embeddings import Embedder
from graphwire.retrieval.flat.common import Guidance, guidance_bonus, guidance_mask, ranked_chunks
from graphwire.retrieval.flat.fusion import part_rank_head, ranks_of, ranks_of_scored, ranks_within, rrf, top_positions
from graphwire.retrieval.flat.index import FlatIndex, IndexSnapshot, Scores
from graphwire.retrieval.models import RetrievalResult
from graphwire.retrieval.question import OutletGazetteer, PublicationMention, QuestionSignals, question_signals
from graphwire.retrieval.timing import StageTimer
from graphwire.schema.model import GraphSchema

Mask = npt.NDArray[np.bool_]
Ranks = npt.NDArray[np.int64]
PICK_OFFSET = 1.0  # picked chunks score above every fused score (fused scores stay well below 0.5)
BRIDGE_PICK_OFFSET = 0.5  # the picks the bridge signal adds: below every first pick, above every fused score


class FlatPlusConfig(BaseModel):
    """Weights tuned on the first half of the MultiHop-RAG questions (bench/flat_tune.py); RRF scale is 1/(60+rank)."""

    named_boost: float = 0.0075
    unlabelled_boost: float = 0.005
    date_boost: float = 0.005
    clause_weight: float = 2.0
    pick_date_boost: float = 0.02
    max_picks: int = 4
    claim_picks: int = 4  # extra picks, one per claim segment of the question (the first four), after the outlet picks
    claim_weight: float = 2.0
    bridge_weight: float = 2.0  # of the bridge signal in the second picks (bench/bridge_feedback.py)
    rrf_k: int = 50
    # the first chunks of the ranking of a question naming outlets, put in order of the ranks its parts give them
    # (`part_ranks`); 0 = the fused order (bench/part_rank_order.md)
    order_depth: int = Field(default=40, ge=0)
    # that order sums each chunk's reciprocal ranks (`rank_sum_order`); false: its best rank, ties by the next best
    # (`best_rank_order`)
    order_by_sum: bool = True
    # the rank the graph's first chunk counts as in that order, when the graph guides: 2 = a part's second (its ranking
    # counts one place behind the parts'); 0 = the graph's ranking is not used
    order_guidance_place: int = Field(default=2, ge=0)
    order_by_date: bool = True  # a clause that dates its outlet's report ranks among the chunks of that date
    # with the bridge signal (joint), each claim of a question that asks for something (not yes/no) also ranked among
    # the named outlets' chunks that name the bridge, in that order (bench/part_rank_order.md)
    order_by_bridge: bool = True
    # when the graph guides (hybrid, joint), each claim's dense ranking among the named outlets' chunks stays out of
    # that order: with the graph's ranking (and the claims among the chunks naming the bridge) it placed more wrong
    # chunks first than right ones (bench/part_rank_order.md)
    order_claim_dense_guided: bool = False


@dataclass(frozen=True)
class CorpusView:
    """Per-snapshot lookups: the gazetteer of the corpus's sources and per-chunk source / date arrays."""

    revision: str
    gazetteer: OutletGazetteer
    sources: npt.NDArray[np.object_]
    unlabelled: Mask
    days: list[date | None]  # the distinct publication dates
    day_of: npt.NDArray[np.int64]  # per chunk, its publication date's index in `days`
    _masks: dict[frozenset[str], Mask] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, snapshot: IndexSnapshot, schema: GraphSchema) -> CorpusView:
        sources = np.array([chunk.source or "" for chunk in snapshot.chunks], dtype=object)
        days = list(dict.fromkeys(chunk.published_at for chunk in snapshot.chunks))
        index = {day: i for i, day in enumerate(days)}
        return cls(
            revision=snapshot.revision,
            gazetteer=OutletGazetteer({chunk.source for chunk in snapshot.chunks if chunk.source}, schema=schema),
            sources=sources,
            unlabelled=sources == "",
            days=days,
            day_of=np.array([index[chunk.published_at] for chunk in snapshot.chunks], dtype=np.int64),
        )

    def from_sources(self, names: Sequence[str]) -> Mask:
        """The chunks of these sources (read only: built once per set of names and snapshot)."""
        key = frozenset(names)
        mask = self._masks.get(key)
        if mask is None:
            mask = np.isin(self.sources, list(key)) if key else np.zeros(len(self.sources), dtype=bool)
            mask.setflags(write=False)
            self._masks[key] = mask
        return mask

    def pool(self, names: Sequence[str]) -> Mask:
        """The chunks a part about these outlets may come from: theirs and the unlabelled ones."""
        return self.from_sources(names) | self.unlabelled

    def admitted(self, analysis: QuestionSignals, publication_index: int | None = None) -> Mask:
        """Chunks whose publication date fits the question's dates (all False when the question has none)."""
        verdicts = np.array([analysis.date_admits(day, publication_index) is True for day in self.days], dtype=bool)
        return verdicts[self.day_of] if len(self.day_of) else np.zeros(0, dtype=bool)


@dataclass(frozen=True)
class PlusFeatures:
    """Everything flat+ needs about one question; ranking from it is pure numpy (cheap to re-run when tuning)."""

    analysis: QuestionSignals
    dense: Scores
    lexical: Scores
    mentions: list[PublicationMention]  # in-corpus mentions, in question order
    mention_indexes: list[int]  # their positions in analysis.publications
    clause_dense: list[Scores]
    clause_lexical: list[Scores]
    claim_dense: list[Scores]  # one per claim segment of the question (only when it has two or more)
    claim_lexical: list[Scores]

    # Rankings of the scores above, sorted once per question however often it is ranked (joint ranks news twice).
    @cached_property
    def question_ranks(self) -> list[Ranks]:
        return [ranks_of(self.dense), ranks_of(self.lexical)]

    @cached_property
    def clause_ranks(self) -> list[list[Ranks]]:
        return [[ranks_of(d), ranks_of(lex)] for d, lex in zip(self.clause_dense, self.clause_lexical, strict=True)]

    @cached_property
    def claim_ranks(self) -> list[list[Ranks]]:
        return [[ranks_of(d), ranks_of(lex)] for d, lex in zip(self.claim_dense, self.claim_lexical, strict=True)]


@dataclass(frozen=True)
class _Picking:
    """What every pick of one ranking reads."""

    view: CorpusView
    features: PlusFeatures
    base: Scores
    allowed: Mask | None
    config: FlatPlusConfig
    lift: Scores  # added to every pick's score: the bridge signal's contribution, zeros without one


BridgeSignal = Callable[[Scores], Scores | None]


def _picked_scores(base: Scores, picks: list[int], added: list[int], allowed: npt.NDArray[np.bool_] | None) -> Scores:
    """`base` with the picks above every other chunk (in pick order) and the bridge's added picks below them."""
    scores = base.copy()
    for offset, chosen in ((PICK_OFFSET, picks), (BRIDGE_PICK_OFFSET, added)):
        for slot, position in enumerate(chosen):
            scores[position] = offset + (len(chosen) - slot) * 1e-3 + base[position]
    return scores if allowed is None else np.where(allowed, scores, -np.inf)


def query_parts(
    question: str, analysis: QuestionSignals, config: FlatPlusConfig
) -> tuple[list[tuple[int, PublicationMention]], list[str], list[str]]:
    """What flat+ embeds and searches beside the question: the named outlets of the corpus (with their place among
    the question's publications), the part of the question about each, and its claim segments (two or more)."""
    picked = [(i, m) for i, m in enumerate(analysis.publications) if m.sources]
    clauses = [m.clause or question for _, m in picked]
    claims = [seg.text for seg in analysis.segments if seg.is_claim]
    return picked, clauses, claims if len(claims) > 1 and config.claim_picks else []


class FlatPlusRetriever:
    name = "flat_plus"

    def __init__(
        self, index: FlatIndex, embedder: Embedder, config: FlatPlusConfig | None = None, *, schema: GraphSchema
    ) -> None:
        """`schema`: where the outlet short forms and the outlets questions may name come from."""
        self.index = index
        self.schema = schema
        self.embedder = embedder
        self.config = config or FlatPlusConfig()
        self._view: CorpusView | None = None

    def view(self, snapshot: IndexSnapshot) -> CorpusView:
        view = self._view
        if view is None or view.revision != snapshot.revision:
            view = self._view = CorpusView.of(snapshot, self.schema)
        return view

    def features(self, question: str, snapshot: IndexSnapshot, timer: StageTimer) -> PlusFeatures:
        with timer.stage("analyze"):
            analysis = question_signals(question, self.view(snapshot).gazetteer)
            picked, clauses, claims = query_parts(question, analysis, self.config)
            texts = [question, *clauses, *claims]
        unique = list(dict.fromkeys(texts))  # a thin clause's fallback is often one of the claim segments
        with timer.stage("embed"):
            vectors = dict(zip(unique, self.embedder.embed_queries(unique), strict=True))
        with timer.stage("dense"):
            rows = snapshot.dense_scores_many(np.asarray(list(vectors.values()), dtype=np.float32))
            dense_by_text = dict(zip(vectors, rows, strict=True))
            dense = [dense_by_text[text] for text in texts]
        with timer.stage("bm25"):
            lexical_by_text = {text: snapshot.bm25_scores(self.index.tokenizer(text)) for text in unique}
            lexical = [lexical_by_text[text] for text in texts]
        split = 1 + len(clauses)
        return PlusFeatures(
            analysis=analysis,
            dense=dense[0],
            lexical=lexical[0],
            mentions=[m for _, m in picked],
            mention_indexes=[i for i, _ in picked],
            clause_dense=dense[1:split],
            clause_lexical=lexical[1:split],
            claim_dense=dense[split:],
            claim_lexical=lexical[split:],
        )

    def rank(
        self,
        snapshot: IndexSnapshot,
        features: PlusFeatures,
        top_k: int,
        guidance: Guidance | None = None,
        config: FlatPlusConfig | None = None,
        bridge: BridgeSignal | None = None,
    ) -> tuple[list[int], Scores]:
        """Positions best first and the score of every chunk. `bridge`: called with the first ranking's scores, it
        returns a per-chunk signal (BM25 of the bridge entity's name) or None; with a signal the picks are made again
        with it fused beside the question's and each clause's rankings, and a pick it changes keeps its first chunk
        and adds the second after all first picks (the chunk of the document that names the bridge, without losing
        the one worded like the clause). Last, the first `order_depth` chunks of a question naming outlets are put in
        order of the sum of the reciprocal ranks its parts (and the graph's ranking, when it guides) give them."""
        config = config or self.config
        view = self.view(snapshot)
        allowed = guidance_mask(snapshot, guidance)
        bonus = guidance_bonus(snapshot, guidance, config.rrf_k)
        base = rrf(features.question_ranks, k=config.rrf_k) + bonus
        base += self._outlet_and_date_boost(view, features.analysis, config)
        picking = _Picking(view, features, base, allowed, config, np.zeros(len(base)))
        picks = self._picks(picking)
        scores = _picked_scores(base, picks, [], allowed)
        signal = bridge(scores) if bridge is not None and config.bridge_weight > 0 else None
        if signal is not None:
            lift = config.bridge_weight / (config.rrf_k + ranks_of_scored(signal, base))
            added = [p for p in self._picks(replace(picking, lift=lift)) if p not in picks]
            scores = _picked_scores(base, picks, added, allowed)
        if config.order_depth:
            guided = bool(config.order_guidance_place and bonus.any())

            def head_ranks(head: npt.NDArray[np.intp]) -> npt.NDArray[np.int64] | None:
                table = self.part_ranks(snapshot, features, config, head, signal, guided)
                if table is None or not guided:
                    return table
                graph = ranks_within(bonus, bonus > 0, head)  # the graph's ranking, behind the parts by `place - 1`
                graph = np.where(graph <= len(bonus), graph + config.order_guidance_place - 1, graph)
                return np.column_stack([table, graph])

            scores = part_rank_head(scores, head_ranks, config.order_depth, config.order_by_sum)
        limit = min(top_k, len(scores) if allowed is None else int(allowed.sum()))
        return top_positions(scores, limit), scores

    def part_ranks(
        self,
        snapshot: IndexSnapshot,
        features: PlusFeatures,
        config: FlatPlusConfig,
        positions: npt.NDArray[np.intp],
        bridge: Scores | None = None,
        guided: bool = False,
    ) -> npt.NDArray[np.int64] | None:
        """The ranks `positions` have in the rankings of the parts of a question that names outlets of the corpus, a
        row per position and a column per ranking, dense and BM25: each clause about an outlet among that outlet's
        chunks (of the date the clause gives it, when any chunk has it), each claim among the named outlets' chunks (as
        the claim picks choose), unlabelled chunks in every pool and the rest ranked after them all. With `bridge` (the
        bridge entity's BM25, joint's) a question asking for something ranks each claim again among those chunks that
        name the bridge: the thing asked for, which the question describes and does not name (a yes/no question names
        what it asks about, and its bridge is a neighbour). `guided`: the graph's ranking is one more column (added by
        `rank`), and each claim's dense ranking among the named outlets' chunks is left out unless
        `order_claim_dense_guided`. None for a question that names no outlet: on encyclopedia
        questions its claims alone put the first chunks in a worse order (bench/part_rank_order.md)."""
        if not features.mentions:
            return None
        view, analysis = self.view(snapshot), features.analysis
        rankings: list[tuple[Mask, Scores]] = []
        for mention, index, dense, lexical in zip(
            features.mentions, features.mention_indexes, features.clause_dense, features.clause_lexical, strict=True
        ):
            pool = view.pool(mention.sources)
            dated = (
                pool & view.admitted(analysis, index) if config.order_by_date and analysis.dates_for(index) else None
            )
            pool = dated if dated is not None and dated.any() else pool
            rankings += [(pool, dense), (pool, lexical)]
        claims = list(zip(features.claim_dense, features.claim_lexical, strict=True))
        named = view.pool(analysis.sources)
        claim_dense = not guided or config.order_claim_dense_guided
        for dense, lexical in claims:
            rankings += [(named, dense), (named, lexical)] if claim_dense else [(named, lexical)]
        if bridge is not None and config.order_by_bridge and not analysis.yes_no:
            naming = named & (bridge > 0)
            rankings += [(naming, scores) for pair in claims for scores in pair]
        columns = [ranks_within(scores, pool, positions) for pool, scores in rankings]
        return np.column_stack(columns)

    def _outlet_and_date_boost(self, view: CorpusView, analysis: QuestionSignals, config: FlatPlusConfig) -> Scores:
        boost = np.zeros(len(view.sources), dtype=np.float64)
        if analysis.sources:
            boost += config.named_boost * view.from_sources(analysis.sources)
            boost += config.unlabelled_boost * view.unlabelled
        if analysis.dates:
            boost += config.date_boost * view.admitted(analysis)
        return boost

    def _picks(self, p: _Picking) -> list[int]:
        """One pick per named outlet mention, then one per claim."""
        picks: list[int] = []
        weight = p.config.clause_weight
        features = p.features
        for mention, index, clause_ranks in zip(
            features.mentions, features.mention_indexes, features.clause_ranks, strict=True
        ):
            if len(picks) >= p.config.max_picks:
                break
            pool = p.view.pool(mention.sources)
            if p.allowed is not None:
                pool &= p.allowed
            pool[picks] = False
            if not pool.any():
                continue
            score = rrf([*features.question_ranks, *clause_ranks], [1, 1, weight, weight], p.config.rrf_k)
            if features.analysis.dates_for(index):
                score = score + p.config.pick_date_boost * p.view.admitted(features.analysis, index)
            score = score + p.lift + 1e-9 * p.base  # ties go to the globally better chunk
            picks.append(int(np.argmax(np.where(pool, score, -np.inf))))
        return picks + self._claim_picks(p, picks)

    def _claim_picks(self, p: _Picking, taken: list[int]) -> list[int]:
        """One pick per claim segment, among the named outlets' chunks (plus unlabelled ones) when outlets are named."""
        config, features = p.config, p.features
        if not config.claim_picks or not features.claim_dense:
            return []
        sources = features.analysis.sources
        pool = p.view.pool(sources) if sources else np.ones(len(p.view.sources), dtype=bool)
        if p.allowed is not None:
            pool &= p.allowed
        weight = config.claim_weight
        picks: list[int] = []
        for claim_ranks in features.claim_ranks:
            if len(picks) >= config.claim_picks:
                break
            candidates = pool.copy()
            candidates[taken + picks] = False
            if not candidates.any():
                break
            score = rrf([*features.question_ranks, *claim_ranks], [1, 1, weight, weight], config.rrf_k)
            score = score + p.lift + 1e-9 * p.base
            picks.append(int(np.argmax(np.where(candidates, score, -np.inf))))
        return picks

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        return self.retrieve_guided(question, top_k, None)

    def retrieve_guided(self, question: str, top_k: int, guidance: Guidance | None) -> RetrievalResult:
        return self.retrieve_awaiting(question, top_k, lambda: guidance)

    def retrieve_awaiting(self, question: str, top_k: int, guidance: Callable[[], Guidance | None]) -> RetrievalResult:
        """flat+ guided by what `guidance` returns, asked for once the question's texts are embedded and scored
        (hybrid's graph pass runs meanwhile)."""
        timer = StageTimer()
        with timer.stage("index"):
            snapshot = self.index.snapshot()
        features = self.features(question, snapshot, timer)
        with timer.stage("guidance"):
            given = guidance()
        with timer.stage("rank"):
            positions, scores = self.rank(snapshot, features, top_k, given)
        analysis = features.analysis
        details = {
            "publications": [m.name for m in analysis.publications],
            "unknown_publications": analysis.unknown_publications,
            "dates": [f"{d.relation.value} {d.text}" for d in analysis.dates],
        }
        return RetrievalResult(
            mode=self.name,
            chunks=ranked_chunks(snapshot, positions, scores),
            timings_ms=timer.finish(),
            details=details,
        )
