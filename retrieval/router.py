"""`mode=auto`: pick vector, hybrid or ppr from question features, and say which and why.

Features come from the graph retriever's stages 1-2 (entity mentions and their match tiers, publications named,
dates, temporal and comparison cues). The policy is an ordered list of small rules; the first that fires wins.
Graph context is known to hurt abstention on unanswerable questions while helping comparison and temporal ones, so
questions that look unanswerable (an outlet the corpus lacks, nothing matched) go to the mode that abstains best
(`ROUTER_UNANSWERABLE_MODE`, vector by default). Names the graph does not know are reported as a feature only.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from graphwire.core.settings import default_of
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.graph.models import QuestionAnalysis
from graphwire.retrieval.models import EntityMatch, MatchTier, RetrievalResult

if TYPE_CHECKING:
    from graphwire.retrieval.registry import RetrievalContext

# "the director of X", "the studio that produced X": a relation to follow from a named entity
_RELATION_CHAIN = re.compile(
    r"\b(?:the|a|an|whose)\s+(?:[a-z]+\s+){0,2}?(?:of|that|who|which)\s+(?:the\s+)?[A-Z0-9]", re.UNICODE
)


class RouteFeatures(BaseModel):
    matched: int = 0  # entities matched (any tier)
    exact: int = 0  # entities matched exactly
    fuzzy_only: bool = False  # every match is fuzzy
    unmatched_mentions: list[str] = Field(default_factory=list)  # names in the question the graph does not know
    publications: int = 0
    unknown_publications: list[str] = Field(default_factory=list)
    dates: int = 0
    temporal: bool = False
    comparison: bool = False
    yes_no: bool = False
    relation_chain: bool = False
    titled: int = 0  # matched entities that a document is about (title entities: encyclopedia-style pages)


class RouteDecision(BaseModel):
    mode: str
    rule: str
    reason: str
    features: RouteFeatures


def extract_features(
    question: str,
    analysis: QuestionAnalysis,
    matches: Sequence[EntityMatch],
    titled_keys: Set[str] = frozenset(),
) -> RouteFeatures:
    outlets = {p.key for p in analysis.publications}  # stage 2 adds the named outlets' nodes as matches
    entity_matches = [m for m in matches if m.key not in outlets]
    matched_mentions = {m.mention.lower() for m in entity_matches}
    signals = analysis.signals
    return RouteFeatures(
        matched=len(entity_matches),
        exact=sum(m.tier is MatchTier.EXACT for m in entity_matches),
        fuzzy_only=bool(entity_matches) and all(m.tier is MatchTier.FUZZY for m in entity_matches),
        unmatched_mentions=[m.text for m in analysis.mentions if m.text.lower() not in matched_mentions],
        publications=len(analysis.publications),
        unknown_publications=list(analysis.unknown_publications),
        dates=len(analysis.dates),
        temporal=bool(signals.temporal_cues) or bool(analysis.dates),
        comparison=bool(signals.comparison_cues),
        yes_no=signals.yes_no,
        relation_chain=bool(_RELATION_CHAIN.search(question)),
        titled=len({m.key for m in entity_matches} & titled_keys),
    )


@dataclass(frozen=True)
class Rule:
    name: str
    mode: str
    reason: str
    applies: Callable[[RouteFeatures], bool]


def default_rules(unanswerable_mode: str = default_of("router_unanswerable_mode")) -> list[Rule]:
    return [
        Rule(
            "unknown_outlet",
            unanswerable_mode,
            "the question names an outlet the corpus does not have: likely unanswerable, use the best abstainer",
            lambda f: bool(f.unknown_publications),
        ),
        Rule(
            "nothing_matched",
            unanswerable_mode,
            "no entity or publication of the question is in the graph",
            lambda f: f.matched == 0 and f.publications == 0,
        ),
        Rule(
            # PPR over title entities and the pages that name them: on HotpotQA Perfect@8 0.90 against 0.78 for
            # graph and 0.66-0.72 for the flat modes (bench/eval/hotpotqa); news headlines never make title entities,
            # so MultiHop-RAG questions do not reach this rule
            "titled_entities",
            "ppr",
            "the question names what a document is about (a title entity): PPR walks from its page to the bridge",
            lambda f: f.titled > 0 and f.publications == 0,
        ),
        Rule(
            # hybrid, not graph alone: on MultiHop-RAG hybrid beats graph on every question type (Perfect@10 0.910 vs
            # 0.770 on comparison, bench/eval/full), since the graph's ranking is one of its two sides
            "comparison_or_temporal",
            "hybrid",
            "comparison/temporal cues with known entities or outlets: graph facts and dates fused with text",
            lambda f: (f.comparison or f.temporal or f.yes_no) and (f.matched > 0 or f.publications > 0),
        ),
        Rule(
            "relation_chain",
            "ppr",
            "a relation to follow from an exactly matched entity: PPR walks to the bridge passage",
            lambda f: f.relation_chain and f.exact > 0 and f.publications == 0,
        ),
        Rule(
            "fuzzy_entities", "hybrid", "entities matched only loosely: combine graph and text", lambda f: f.fuzzy_only
        ),
        Rule("default", "hybrid", "no specific cue: graph and text combined", lambda f: True),
    ]


# When a mode is not registered (e.g. hybrid before it exists), the next one available is used.
FALLBACKS: dict[str, list[str]] = {
    "hybrid": ["hybrid", "flat_plus", "fused", "vector", "graph"],
    "vector": ["vector", "fused", "bm25", "graph"],
    "ppr": ["ppr", "graph"],
    "graph": ["graph"],
}


class RoutingPolicy:
    def __init__(self, rules: Sequence[Rule], available: Callable[[], Sequence[str]]) -> None:
        self.rules = list(rules)
        self.available = available

    def decide(self, features: RouteFeatures) -> RouteDecision:
        modes = set(self.available()) - {"auto"}
        rule = next(r for r in self.rules if r.applies(features))
        chain = FALLBACKS.get(rule.mode, [rule.mode])
        mode = next((m for m in chain if m in modes), None) or sorted(modes)[0]
        reason = rule.reason if mode == rule.mode else f"{rule.reason} ({rule.mode} unavailable, using {mode})"
        return RouteDecision(mode=mode, rule=rule.name, reason=reason, features=features)


Analyser = Callable[[str], tuple[QuestionAnalysis, list[EntityMatch]]]


class AutoRetriever:
    name = "auto"

    def __init__(
        self,
        analyse: Analyser,
        policy: RoutingPolicy,
        retriever_for: Callable[[str], Retriever],
        titled_keys: Callable[[], Set[str]] = frozenset,
    ) -> None:
        self.analyse = analyse
        self.policy = policy
        self.retriever_for = retriever_for
        self.titled_keys = titled_keys

    def route(self, question: str) -> RouteDecision:
        analysis, matches = self.analyse(question)
        return self.policy.decide(extract_features(question, analysis, matches, self.titled_keys()))

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        started = time.perf_counter()
        decision = self.route(question)
        routing_ms = round((time.perf_counter() - started) * 1000, 3)
        result = self.retriever_for(decision.mode).retrieve(question, top_k)
        details = {**result.details, "router": decision.model_dump(mode="json")}
        return result.model_copy(
            update={"mode": self.name, "details": details, "timings_ms": {"routing": routing_ms, **result.timings_ms}}
        )


def auto_mode(ctx: RetrievalContext) -> AutoRetriever:
    """Routes with the shared stages 1-2 to the context's own mode instances (no second copy of any)."""
    from graphwire.retrieval.registry import mode_names

    policy = RoutingPolicy(default_rules(ctx.settings.router_unanswerable_mode.value), mode_names)
    services = ctx.services()
    return AutoRetriever(services.analyse, policy, ctx.retriever, services.snapshots.titled_keys)
