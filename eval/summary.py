"""Aggregates question records into per-system and per-type metrics (the numbers every report shows)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from graphwire.eval.questions import QUESTION_TYPES
from graphwire.eval.records import QuestionRecord
from graphwire.eval.scorers import Outcome, gold_in_quote
from graphwire.retrieval.models import AnswerKind

RETRIEVAL_METRICS = (
    "hits_at_4",
    "hits_at_10",
    "map_at_10",
    "mrr_at_10",
    "perfect_at_4",
    "perfect_at_10",
    "recall_at_2",  # share of gold facts in the top 2 / 5 chunks
    "recall_at_5",
    "article_precision_at_10",
    "article_recall_at_10",
)
ALL = "all"
# Title-scored sets (eval.scorers.score_titles): k counts distinct document titles.
TITLE_METRICS = (
    "perfect_at_2",
    "perfect_at_5",
    "perfect_at_8",
    "perfect_at_10",
    "recall_at_2",
    "recall_at_5",
    "mrr",
    "titles_retrieved",
)
METRIC_LABELS = {
    "hits_at_4": "Hits@4",
    "hits_at_10": "Hits@10",
    "map_at_10": "MAP@10",
    "mrr_at_10": "MRR@10",
    "perfect_at_4": "Perfect@4",
    "perfect_at_10": "Perfect@10",
    "article_precision_at_10": "ArtP@10",
    "article_recall_at_10": "ArtR@10",
    "perfect_at_2": "Perfect@2",
    "perfect_at_5": "Perfect@5",
    "perfect_at_8": "Perfect@8",
    "recall_at_2": "Recall@2",
    "recall_at_5": "Recall@5",
    "mrr": "MRR",
    "titles_retrieved": "titles/q",
}
FACTS, TITLES = "facts", "titles"  # how a summary's retrieval was scored
LEVEL_ORDER = ("easy", "medium", "hard")


class AnswerMetrics(BaseModel):
    answered: int
    answerer: str | None
    strict_accuracy: float
    official_word_overlap_accuracy: float
    cs564_lenient_accuracy: float
    miss_rate: float | None  # abstained on questions that have an answer (non-null only)
    hallucination_rate: float | None  # answered a null question (null only)
    outcomes: dict[str, int]
    kinds: dict[str, int] = Field(default_factory=dict)  # answers by `answer_kind`
    # answers with quoted sentences to answerable questions whose gold a sentence can hold (not yes/no), and the
    # share whose quotes hold it
    quotes_scored: int = 0
    answer_in_quote: float | None = None


class GroupMetrics(BaseModel):
    questions: int
    errors: int
    scored: int  # non-null questions with a retrieval score
    full_metadata: int
    retrieval: dict[str, float] = Field(default_factory=dict)
    answers: AnswerMetrics | None = None
    llm_calls_per_question: float = 0.0
    tokens_per_question: float = 0.0


class SystemSummary(BaseModel):
    system: str
    scoring: str = FACTS  # "facts" (MultiHop-RAG metrics) or "titles" (TITLE_METRICS by distinct document title)
    overall: GroupMetrics
    by_type: dict[str, GroupMetrics]
    by_level: dict[str, GroupMetrics] = Field(default_factory=dict)  # title-scored sets with a `level` per question
    full_metadata: GroupMetrics | None = None  # questions whose every evidence item has source, date and url
    latency_ms: dict[str, dict[str, float]]  # stage -> {"p50", "p95", "mean", "n"}
    detail_means: dict[str, float] = Field(default_factory=dict)  # numeric retriever details, e.g. hybrid contributions


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def _answer_metrics(records: Sequence[QuestionRecord]) -> AnswerMetrics | None:
    scored = [r for r in records if r.answer_score is not None]
    if not scored:
        return None
    outcomes = [r.answer_score.strict for r in scored if r.answer_score]
    nulls = [r for r in scored if r.question_type == "null_query"]
    non_null = [r for r in scored if r.question_type != "null_query"]
    quoted = [r for r in non_null if r.quotes and r.answer_kind != AnswerKind.ABSTENTION]
    in_quote = [held for r in quoted if (held := gold_in_quote(" ".join(r.quotes), r.gold_answer)) is not None]
    return AnswerMetrics(
        answered=len(scored),
        answerer=scored[0].answerer,
        strict_accuracy=_mean([float(o is Outcome.CORRECT) for o in outcomes]),
        official_word_overlap_accuracy=_mean(
            [float(r.answer_score.official_word_overlap) for r in scored if r.answer_score]
        ),
        cs564_lenient_accuracy=_mean([float(r.answer_score.cs564_lenient) for r in scored if r.answer_score]),
        miss_rate=_mean([float(r.answer_score.strict is Outcome.MISS) for r in non_null if r.answer_score])
        if non_null
        else None,
        hallucination_rate=_mean(
            [float(r.answer_score.strict is Outcome.HALLUCINATION) for r in nulls if r.answer_score]
        )
        if nulls
        else None,
        outcomes={o.value: sum(1 for x in outcomes if x is o) for o in Outcome},
        kinds=dict(sorted(Counter(r.answer_kind for r in scored if r.answer_kind).items())),
        quotes_scored=len(in_quote),
        answer_in_quote=_mean([float(held) for held in in_quote]) if in_quote else None,
    )


def group_metrics(records: Sequence[QuestionRecord]) -> GroupMetrics:
    ok = [r for r in records if r.error is None]
    scored: Sequence[BaseModel] = [r.title_retrieval for r in ok if r.title_retrieval is not None]
    names: tuple[str, ...] = TITLE_METRICS
    if not scored:
        scored, names = [r.retrieval for r in ok if r.retrieval is not None], RETRIEVAL_METRICS
    retrieval = {name: _mean([float(getattr(s, name)) for s in scored]) for name in names}
    return GroupMetrics(
        questions=len(records),
        errors=len(records) - len(ok),
        scored=len(scored),
        full_metadata=sum(1 for r in records if r.has_full_metadata),
        retrieval=retrieval if scored else {},
        answers=_answer_metrics(ok),
        llm_calls_per_question=_mean([r.usage.llm_calls for r in ok]),
        tokens_per_question=_mean([r.usage.prompt_tokens + r.usage.completion_tokens for r in ok]),
    )


def latency_stats(records: Sequence[QuestionRecord]) -> dict[str, dict[str, float]]:
    stages: dict[str, list[float]] = {}
    for record in records:
        if record.error is None:
            for stage, ms in record.latency_ms.items():
                stages.setdefault(stage, []).append(ms)
    return {
        stage: {
            "p50": float(np.percentile(values, 50)),
            "p95": float(np.percentile(values, 95)),
            "mean": float(np.mean(values)),
            "n": float(len(values)),
        }
        for stage, values in sorted(stages.items())
    }


def detail_means(records: Sequence[QuestionRecord]) -> dict[str, float]:
    """Means of the numeric `details` a retriever reports (what each side of a hybrid contributed, seeds, ...)."""
    values: dict[str, list[float]] = {}
    for record in records:
        for key, value in record.details.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.setdefault(key, []).append(float(value))
    return {key: _mean(v) for key, v in sorted(values.items())}


def _ordered(values: Sequence[str], known: Sequence[str]) -> list[str]:
    """Known names in their order, then the others sorted."""
    present = set(values)
    return [v for v in known if v in present] + sorted(present - set(known))


def scoring_of(records: Sequence[QuestionRecord]) -> str:
    return TITLES if any(r.title_retrieval is not None for r in records) else FACTS


def summarize_system(system: str, records: Sequence[QuestionRecord]) -> SystemSummary:
    types = _ordered([r.question_type for r in records], QUESTION_TYPES)
    by_type = {t: group_metrics([r for r in records if r.question_type == t]) for t in types}
    levels = _ordered([r.level for r in records if r.level is not None], LEVEL_ORDER)
    by_level = {level: group_metrics([r for r in records if r.level == level]) for level in levels}
    return SystemSummary(
        system=system,
        scoring=scoring_of(records),
        overall=group_metrics(records),
        by_type={t: m for t, m in by_type.items() if m.questions},
        by_level=by_level,
        full_metadata=group_metrics([r for r in records if r.has_full_metadata]),
        latency_ms=latency_stats(records),
        detail_means=detail_means([r for r in records if r.error is None]),
    )
