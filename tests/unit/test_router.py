"""mode=auto: features from a question's analysis and matches, and the routing decisions on typical questions."""

from __future__ import annotations

import pytest

from graphwire.core.settings import RetrievalMode
from graphwire.retrieval.graph.models import Mention, MentionOrigin, QuestionAnalysis
from graphwire.retrieval.models import EntityMatch, MatchTier, RetrievalResult
from graphwire.retrieval.question import QuestionSignals as Signals
from graphwire.retrieval.registry import MODES, check_modes
from graphwire.retrieval.router import AutoRetriever, RouteFeatures, RoutingPolicy, default_rules, extract_features

ALL_MODES = ["graph", "vector", "hybrid", "ppr", "auto"]
RULES = {rule.name: rule for rule in default_rules("vector")}


def _policy(modes: list[str] = ALL_MODES) -> RoutingPolicy:
    return RoutingPolicy(default_rules("vector"), lambda: modes)


def _match(name: str, tier: MatchTier = MatchTier.EXACT, label: str = "Person") -> EntityMatch:
    return EntityMatch(mention=name, key=f"{label}:{name.lower()}", name=name, label=label, tier=tier, score=100)


def _analysis(question: str, mentions: list[str], **signals: object) -> QuestionAnalysis:
    return QuestionAnalysis(
        question=question,
        mentions=[Mention(text=m, origin=MentionOrigin.SPAN) for m in mentions],
        signals=Signals(question=question, **signals),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("question", "mentions", "matches", "signals", "rule", "mode"),
    [
        (
            "Where was the director of Blue Cartographer born?",
            ["Blue Cartographer"],
            [_match("Blue Cartographer", label="Film")],
            {},
            "relation_chain",
            "ppr",
        ),
        (
            "Did both Ilse Marrow and Tomasz Wren direct films shot in Brackwater?",
            ["Ilse Marrow", "Tomasz Wren", "Brackwater"],
            [_match("Ilse Marrow"), _match("Tomasz Wren"), _match("Brackwater", label="Place")],
            {"yes_no": True, "comparison_cues": ["both"]},
            "comparison_or_temporal",
            "hybrid",
        ),
        (
            "Was the ruling on Kestrel Motors reported before the recall?",
            ["Kestrel Motors"],
            [_match("Kestrel Motors", label="Organization")],
            {"temporal_cues": ["before"]},
            "comparison_or_temporal",
            "hybrid",
        ),
        (
            "What is the boiling point of mercury on the moon?",
            [],
            [],
            {},
            "nothing_matched",
            "vector",
        ),
        (
            "What did Ilse Marow say about fishing?",
            ["Ilse Marow"],
            [_match("Ilse Marrow", tier=MatchTier.FUZZY)],
            {},
            "fuzzy_entities",
            "hybrid",
        ),
        (
            "What happened to Varnholm's harbour?",
            ["Varnholm"],
            [_match("Varnholm", label="Place")],
            {},
            "default",
            "hybrid",
        ),
    ],
)
def test_typical_questions_are_routed(
    question: str,
    mentions: list[str],
    matches: list[EntityMatch],
    signals: dict[str, object],
    rule: str,
    mode: str,
) -> None:
    decision = _policy().decide(extract_features(question, _analysis(question, mentions, **signals), matches))
    assert (decision.rule, decision.mode) == (rule, mode)
    assert decision.reason == RULES[rule].reason  # the firing rule's own reason: every mode is available, no fallback


def test_an_unknown_outlet_goes_to_the_best_abstainer() -> None:
    features = RouteFeatures(matched=2, exact=2, unknown_publications=["The Daily Planet"], comparison=True)
    decision = _policy().decide(features)
    assert (decision.rule, decision.mode) == ("unknown_outlet", "vector")  # before the comparison rule
    assert "outlet the corpus does not have" in decision.reason
    graph_abstains = RoutingPolicy(default_rules("graph"), lambda: ALL_MODES).decide(features)
    assert (graph_abstains.rule, graph_abstains.mode) == ("unknown_outlet", "graph")  # ROUTER_UNANSWERABLE_MODE


@pytest.mark.parametrize(
    ("available", "features", "mode"),
    [
        # hybrid -> flat_plus -> fused -> vector -> graph
        (["graph", "ppr", "flat_plus", "fused"], RouteFeatures(matched=1, exact=1), "flat_plus"),
        (["graph", "ppr", "fused", "vector"], RouteFeatures(matched=1, exact=1), "fused"),
        (["graph", "ppr", "vector"], RouteFeatures(matched=1, exact=1), "vector"),
        (["graph", "ppr"], RouteFeatures(matched=1, exact=1), "graph"),
        # vector -> fused -> bm25 -> graph
        (["graph", "bm25", "fused"], RouteFeatures(), "fused"),
        (["graph", "bm25"], RouteFeatures(), "bm25"),
        # ppr -> graph
        (["graph", "vector", "hybrid"], RouteFeatures(matched=1, exact=1, relation_chain=True), "graph"),
        # nothing in the chain: the first available mode by name
        (["fused", "bm25"], RouteFeatures(matched=1, exact=1, relation_chain=True), "bm25"),
    ],
)
def test_a_missing_mode_falls_back_in_order_and_says_so(
    available: list[str], features: RouteFeatures, mode: str
) -> None:
    decision = _policy(available).decide(features)
    rule = RULES[decision.rule]
    assert decision.mode == mode
    assert decision.reason == f"{rule.reason} ({rule.mode} unavailable, using {mode})"


def test_unmatched_names_are_reported() -> None:
    analysis = _analysis("Did Ilse Marrow meet Zebediah Quartermaine?", ["Ilse Marrow", "Zebediah Quartermaine"])
    features = extract_features(analysis.question, analysis, [_match("Ilse Marrow")])
    assert features.unmatched_mentions == ["Zebediah Quartermaine"]


class _Fixed:
    def __init__(self, name: str) -> None:
        self.name = name

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        return RetrievalResult(mode=self.name, timings_ms={"total": 1.0}, details={"seen": question})


def test_auto_retriever_delegates_and_reports_its_choice() -> None:
    def analyse(question: str) -> tuple[QuestionAnalysis, list[EntityMatch]]:
        return _analysis(question, ["Blue Cartographer"]), [_match("Blue Cartographer", label="Film")]

    auto = AutoRetriever(analyse, _policy(), _Fixed)
    result = auto.retrieve("Where was the director of Blue Cartographer born?")
    assert result.mode == "auto"
    assert result.details["router"]["mode"] == "ppr" and result.details["router"]["rule"] == "relation_chain"
    assert result.details["seen"].startswith("Where was")
    assert set(result.timings_ms) == {"routing", "total"}


def test_a_question_naming_what_a_document_is_about_goes_to_ppr() -> None:
    """Title entities exist only where documents open by naming their subject; a comparison of two such pages goes
    to PPR, the same question over entities no document is about still goes to hybrid."""
    analysis = _analysis(
        "Which came first, Marrowdale or Skerrin?", ["Marrowdale", "Skerrin"], comparison_cues=["first"]
    )
    matches = [_match("Marrowdale", label="CreativeWork"), _match("Skerrin", label="Location")]
    titled = extract_features(analysis.question, analysis, matches, frozenset({"CreativeWork:marrowdale"}))
    assert titled.titled == 1
    assert _policy().decide(titled).rule == "titled_entities" and _policy().decide(titled).mode == "ppr"
    untitled = extract_features(analysis.question, analysis, matches)
    assert untitled.titled == 0
    assert _policy().decide(untitled).mode == "hybrid"


def test_auto_retriever_reads_the_title_entities_it_is_given() -> None:
    def analyse(question: str) -> tuple[QuestionAnalysis, list[EntityMatch]]:
        return _analysis(question, ["Marrowdale"]), [_match("Marrowdale", label="CreativeWork")]

    auto = AutoRetriever(analyse, _policy(), _Fixed, lambda: frozenset({"CreativeWork:marrowdale"}))
    assert auto.route("Who directed Marrowdale?").mode == "ppr"
    assert AutoRetriever(analyse, _policy(), _Fixed).route("Who directed Marrowdale?").mode == "hybrid"


def test_the_registered_modes_are_the_settings_mode_names() -> None:
    assert set(MODES) == {mode.value for mode in RetrievalMode}  # what ROUTER_UNANSWERABLE_MODE is checked against
    check_modes(MODES)
    with pytest.raises(RuntimeError, match=r"only registered \['extra'\], only declared \[\]"):
        check_modes([*MODES, "extra"])
    with pytest.raises(RuntimeError, match=r"only declared \['vector'\]"):
        check_modes([name for name in MODES if name != "vector"])
