"""Subsets of a question set: type filters, fixed-seed samples and limits."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from graphwire.eval.questions import QUESTION_TYPES, DatasetError, EvalQuestion, QuestionSet, TitleQuestion


def filter_types(questions: Sequence[EvalQuestion], types: Iterable[str] | None) -> list[EvalQuestion]:
    """Keep the given question types; accepts short names ("inference") as well as the file's ("inference_query").
    Title-scored questions keep their file's own types (bridge, comparison, ...)."""
    if not types:
        return list(questions)
    if questions and all(isinstance(q, TitleQuestion) for q in questions):
        present = list(dict.fromkeys(q.question_type for q in questions))
        wanted_titles = set(types)
        if wanted_titles - set(present):
            raise DatasetError(
                f"Unknown question type(s) {sorted(wanted_titles - set(present))}; this file has {present}"
            )
        return [q for q in questions if q.question_type in wanted_titles]
    wanted = {t if t.endswith("_query") else f"{t}_query" for t in types}
    unknown = wanted - set(QUESTION_TYPES)
    if unknown:
        raise DatasetError(f"Unknown question type(s) {sorted(unknown)}; expected some of {list(QUESTION_TYPES)}")
    return [q for q in questions if q.question_type in wanted]


def sample(questions: Sequence[EvalQuestion], size: int | None, seed: int = 0) -> list[EvalQuestion]:
    """A fixed-seed random sample, returned in file order so runs and reports read the same way each time."""
    if size is None or size >= len(questions):
        return list(questions)
    if size < 1:
        raise DatasetError(f"Sample size must be at least 1, got {size}")
    picked = random.Random(seed).sample(range(len(questions)), size)
    return [questions[i] for i in sorted(picked)]


def select(
    question_set: QuestionSet,
    *,
    types: Iterable[str] | None = None,
    sample_size: int | None = None,
    seed: int = 0,
    limit: int | None = None,
) -> list[EvalQuestion]:
    """Type filter, then fixed-seed sample, then the first `limit` questions."""
    chosen = sample(filter_types(question_set.questions, types), sample_size, seed)
    return chosen[:limit] if limit is not None else chosen
