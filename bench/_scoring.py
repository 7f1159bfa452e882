"""Scoring a benchmark's own rankings of the flat index as `graphwire eval` scores a mode's (fact- and title-scored)."""

from __future__ import annotations

from collections.abc import Sequence

from graphwire.eval.questions import EvalQuestion
from graphwire.eval.scorers import score_retrieval
from graphwire.retrieval.flat.index import IndexSnapshot


def positions_scores(
    snapshot: IndexSnapshot, positions: Sequence[int], question: EvalQuestion, metrics: Sequence[str]
) -> dict[str, float]:
    """`metrics` of the chunks at `positions` (best first) for `question`."""
    texts = [snapshot.chunks[p].text for p in positions]
    titles = [snapshot.chunks[p].title for p in positions]
    result = score_retrieval(texts, titles, question.gold_facts, question.gold_titles)
    return {metric: float(getattr(result, metric)) for metric in metrics}
