"""The default mode against the best flat mode on the same questions: each retrieval score's difference and its
interval from a paired bootstrap over the questions, so a report says whether a lead is larger than the noise of
which questions were drawn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel

from graphwire.eval.records import QuestionRecord
from graphwire.eval.summary import METRIC_LABELS, RETRIEVAL_METRICS, TITLE_METRICS, TITLES, scoring_of
from graphwire.eval.systems import FLAT_MODES
from graphwire.retrieval.registry import DEFAULT_MODE

RESAMPLES = 10_000
CONFIDENCE = 0.95
SEED = 0
# counts and shares of retrieved documents, not scores of the ranking
NOT_COMPARED = ("titles_retrieved", "article_precision_at_10", "article_recall_at_10")


class Lead(BaseModel):
    """One score: the default mode's mean, the best flat mode's (chosen on these questions, which favours it), the
    difference and its bootstrap interval."""

    metric: str
    default: str
    default_value: float
    flat: str
    flat_value: float
    difference: float
    low: float
    high: float
    questions: int


def scored(records: Sequence[QuestionRecord]) -> dict[str, BaseModel]:
    """Per question id, the retrieval score of each question the system scored without error (title scores first)."""
    return {
        r.question_id: score
        for r in records
        if r.error is None and (score := r.title_retrieval or r.retrieval) is not None
    }


def paired_leads(
    records: Mapping[str, Sequence[QuestionRecord]],
    default: str = DEFAULT_MODE,
    flat: Sequence[str] = FLAT_MODES,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[Lead]:
    """A `Lead` per retrieval score, over the questions the default mode and every flat mode of the run scored; none
    when the run lacks the default mode or every flat mode. Every score is resampled with the same draws."""
    flats = [name for name in flat if name in records]
    if default not in records or not flats:
        return []
    names = TITLE_METRICS if scoring_of(records[default]) == TITLES else RETRIEVAL_METRICS
    metrics = [m for m in names if m not in NOT_COMPARED]
    by_system = {name: scored(records[name]) for name in [default, *flats]}
    common = sorted(set.intersection(*(set(scores) for scores in by_system.values())))
    if not common:
        return []
    draws = np.random.default_rng(seed).integers(0, len(common), size=(resamples, len(common)))
    leads = []
    for metric in metrics:
        values = {name: np.array([float(getattr(by_system[name][q], metric)) for q in common]) for name in by_system}
        best = max(flats, key=lambda name: (float(values[name].mean()), -flats.index(name)))
        differences = values[default] - values[best]
        low, high = np.quantile(differences[draws].mean(axis=1), [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
        leads.append(
            Lead(
                metric=metric,
                default=default,
                default_value=float(values[default].mean()),
                flat=best,
                flat_value=float(values[best].mean()),
                difference=float(differences.mean()),
                low=float(low),
                high=float(high),
                questions=len(common),
            )
        )
    return leads


def lead_section(leads: Sequence[Lead]) -> list[str]:
    """The report's section: a row per score."""
    if not leads:
        return []
    first = leads[0]
    lines = [
        "## The default mode against the best flat mode (paired)",
        "",
        f"`{first.default}` (the default mode) against the best of the flat modes of the run on each score, over "
        f"the {first.questions} questions all of them scored: the difference of the means and its "
        f"{CONFIDENCE:.0%} interval from a paired bootstrap over the questions ({RESAMPLES:,} resamples, seed "
        f"{SEED}). The best flat mode is chosen per score on these same questions, which favours it; an interval "
        "above zero is a lead larger than the noise of which questions were drawn.",
        "",
        f"| Score | {first.default} | best flat mode | its score | difference | {CONFIDENCE:.0%} interval |",
        "|---|---|---|---|---|---|",
    ]
    for lead in leads:
        lines.append(
            f"| {METRIC_LABELS.get(lead.metric, lead.metric)} | {lead.default_value:.3f} | {lead.flat} | "
            f"{lead.flat_value:.3f} | {lead.difference:+.3f} | [{lead.low:+.3f}, {lead.high:+.3f}] |"
        )
    return [*lines, ""]
