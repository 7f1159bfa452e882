"""Aggregates question records into per-system and per-type metrics (the numbers every report shows)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from eval.datasets import QUESTION_TYPES
from eval.records import QuestionRecord
from eval.scorers import Outcome

RETRIEVAL_METRICS = (
    "hits_at_4",
    "hits_at_10",
    "map_at_10",
    "mrr_at_10",
    "perfect_at_4",
    "perfect_at_10",
    "article_precision_at_10",
    "article_recall_at_10",
)
ALL = "all"

# The bar for graph or hybrid modes, measured in the same run as the flat ones.
TARGETS: dict[str, tuple[str, str, float]] = {
    "Perfect@10": (ALL, "perfect_at_10", 0.90),
    "Perfect@4": (ALL, "perfect_at_4", 0.75),
    "MAP@10": (ALL, "map_at_10", 0.62),
    "inference Perfect@10": ("inference_query", "perfect_at_10", 0.85),
}


class AnswerMetrics(BaseModel):
    answered: int
    answerer: str | None
    strict_accuracy: float
    official_word_overlap_accuracy: float
    cs564_lenient_accuracy: float
    miss_rate: float | None  # abstained on questions that have an answer (non-null only)
    hallucination_rate: float | None  # answered a null question (null only)
    outcomes: dict[str, int]


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
    overall: GroupMetrics
    by_type: dict[str, GroupMetrics]
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
    )


def group_metrics(records: Sequence[QuestionRecord]) -> GroupMetrics:
    ok = [r for r in records if r.error is None]
    scored = [r.retrieval for r in ok if r.retrieval is not None]
    retrieval = {name: _mean([float(getattr(s, name)) for s in scored]) for name in RETRIEVAL_METRICS}
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


def summarize_system(system: str, records: Sequence[QuestionRecord]) -> SystemSummary:
    by_type = {t: group_metrics([r for r in records if r.question_type == t]) for t in QUESTION_TYPES}
    return SystemSummary(
        system=system,
        overall=group_metrics(records),
        by_type={t: m for t, m in by_type.items() if m.questions},
        full_metadata=group_metrics([r for r in records if r.has_full_metadata]),
        latency_ms=latency_stats(records),
        detail_means=detail_means([r for r in records if r.error is None]),
    )


def target_checks(summary: SystemSummary) -> dict[str, tuple[float | None, float, bool]]:
    """Each issue target: (measured value, threshold, met)."""
    checks: dict[str, tuple[float | None, float, bool]] = {}
    for label, (group, metric, threshold) in TARGETS.items():
        metrics = summary.overall if group == ALL else summary.by_type.get(group)
        value = metrics.retrieval.get(metric) if metrics else None
        checks[label] = (value, threshold, value is not None and value >= threshold)
    return checks
