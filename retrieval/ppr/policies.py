"""Ranking policies: how many of the scored chunks to keep. Small interchangeable objects, one rule each."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field


class RankingPolicy(Protocol):
    name: str

    def cut(self, sorted_scores: npt.NDArray[np.float64]) -> int:
        """How many of the scores (sorted best first, all > 0) to keep."""
        ...


class TopK(BaseModel):
    name: str = "top_k"
    k: int = Field(default=10, ge=1)

    def cut(self, sorted_scores: npt.NDArray[np.float64]) -> int:
        return min(self.k, len(sorted_scores))


class Threshold(BaseModel):
    """Keep scores at or above `relative` times the best score (and above `absolute`)."""

    name: str = "threshold"
    relative: float = Field(default=0.1, ge=0.0, le=1.0)
    absolute: float = Field(default=0.0, ge=0.0)

    def cut(self, sorted_scores: npt.NDArray[np.float64]) -> int:
        if len(sorted_scores) == 0:
            return 0
        floor = max(self.absolute, self.relative * float(sorted_scores[0]))
        return int(np.count_nonzero(sorted_scores >= floor))


class Elbow(BaseModel):
    """Cut at the largest relative drop between consecutive scores, keeping between `min_keep` and `max_keep`."""

    name: str = "elbow"
    min_keep: int = Field(default=1, ge=1)
    max_keep: int = Field(default=20, ge=1)

    def cut(self, sorted_scores: npt.NDArray[np.float64]) -> int:
        if len(sorted_scores) <= self.min_keep:
            return len(sorted_scores)
        head = sorted_scores[: self.max_keep + 1]  # the drop after the last kept score counts too
        ratios = head[1:] / np.maximum(head[:-1], 1e-300)  # score[i+1]/score[i]; the elbow is the smallest ratio
        candidates = ratios[self.min_keep - 1 :]
        if len(candidates) == 0:
            return min(len(head), self.max_keep)
        return self.min_keep + int(np.argmin(candidates))


def make_policy(name: str, k: int = 10) -> RankingPolicy:
    """The policy a setting names: `top_k`, `threshold` or `elbow` (the latter two still capped at k)."""
    if name == "top_k":
        return TopK(k=k)
    if name == "threshold":
        return Threshold()
    if name == "elbow":
        return Elbow(max_keep=k)
    raise ValueError(f"unknown ranking policy {name!r}; use top_k, threshold or elbow")


def rank(scores: npt.NDArray[np.float64], policy: RankingPolicy, cap: int) -> list[tuple[int, float]]:
    """(index, score) of the kept positive scores, best first (ties broken by index), at most `cap`."""
    positive = np.flatnonzero(scores > 0)
    if len(positive) == 0 or cap <= 0:
        return []
    if len(positive) > cap:  # every policy's cut is capped, so only the best `cap` scores (and ties) matter
        kth = np.partition(-scores[positive], cap - 1)[cap - 1]
        positive = positive[-scores[positive] <= kth]
    order = positive[np.lexsort((positive, -scores[positive]))]
    sorted_scores = scores[order]
    keep = min(policy.cut(sorted_scores), cap)
    return [(int(i), float(scores[i])) for i in order[:keep]]
