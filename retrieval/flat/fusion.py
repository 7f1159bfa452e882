"""Rank fusion and ordering helpers shared by the flat retrievers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

RRF_K = 60


def descending_order(scores: npt.NDArray[np.floating]) -> npt.NDArray[np.intp]:
    """Positions by descending score, ties in position order: what a stable sort of `-scores` gives (runs are
    reproducible), in a fifth of its time when the scores are distinct (dense similarities) and no slower when most
    tie (BM25's zeros). numpy's quicksort is vectorised but not stable, so the positions of each run of equal scores
    are put back in order by a second sort, on keys that are all distinct."""
    order = np.argsort(-scores, kind="quicksort")
    values = scores[order]
    starts = np.ones(len(values), dtype=bool)
    np.not_equal(values[1:], values[:-1], out=starts[1:])
    if starts.all():
        return order
    runs = np.cumsum(starts) - 1
    return order[np.argsort(runs * len(values) + order, kind="quicksort")]


def ranks_of(scores: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """1-based rank of every position under descending scores (ties broken by position, so runs are reproducible)."""
    order = descending_order(scores)
    ranks = np.empty(len(scores), dtype=np.int64)
    ranks[order] = np.arange(1, len(scores) + 1)
    return ranks


def ranks_of_scored(scores: npt.NDArray[np.float64], tiebreak: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """1-based ranks of the positions `scores` gives a positive value, by it and then by `tiebreak` (a score of the
    same scale as itself or smaller); infinity for the others, which get nothing from reciprocal-rank fusion."""
    order = descending_order(scores * 1000.0 + tiebreak)
    ranks = np.empty(len(scores), dtype=np.float64)
    ranks[order] = np.arange(1, len(scores) + 1)
    return np.where(scores > 0, ranks, np.inf)


def rrf(
    rankings: Sequence[npt.NDArray[np.int64]], weights: Sequence[float] | None = None, k: int = RRF_K
) -> npt.NDArray[np.float64]:
    """Reciprocal-rank fusion over full rankings of the same positions: sum of weight / (k + rank)."""
    if not rankings:
        return np.zeros(0)
    weights = weights or [1.0] * len(rankings)
    fused = np.zeros(len(rankings[0]), dtype=np.float64)
    for weight, ranking in zip(weights, rankings, strict=True):
        fused += weight / (k + ranking)
    return fused


def ranks_within(
    scores: npt.NDArray[np.float64], pool: npt.NDArray[np.bool_], positions: npt.NDArray[np.intp]
) -> npt.NDArray[np.int64]:
    """The 1-based rank each of `positions` has among the `pool` chunks by descending score, ties by position (what
    `ranks_of` gives the pool ranked alone), `len(scores) + 1` for one outside the pool; counted for these positions
    only, so a few chunks cost a fraction of a sort of the pool."""
    members = np.flatnonzero(pool)
    values, own = scores[members], scores[positions]
    ascending = np.sort(-values)
    above = np.searchsorted(ascending, -own, side="left")  # pool chunks of a higher score
    tied = np.searchsorted(ascending, -own, side="right") - above > 1  # others of the same score: earlier ones lead
    if tied.any():
        same = (values == own[tied, None]) & (members < positions[tied, None])
        above[tied] += same.sum(axis=1)
    return np.where(pool[positions], above + 1, len(scores) + 1)


def best_rank_order(table: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
    """The order of a table's rows (a chunk each, a column per ranking) by the best rank in the row, ties by the next
    best rank and so on, then by row: a chunk that one ranking puts first comes before one that all of them put
    second."""
    ranked = np.sort(table, axis=1)
    return np.lexsort((np.arange(len(table)), *ranked.T[::-1]))  # the last key leads: the best rank


def rank_sum_order(table: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
    """The order of a table's rows (a chunk each, a column per ranking) by the sum of their reciprocal ranks
    (reciprocal-rank fusion without its constant), ties by row: a first place still counts most, and a chunk that
    several rankings put near the top can pass one that a single ranking puts first (1/2 + 1/3 + 1/4 > 1)."""
    total = (1.0 / table).sum(axis=1)
    return np.lexsort((np.arange(len(table)), -total))


def part_rank_head(
    scores: npt.NDArray[np.float64],
    head_ranks: Callable[[npt.NDArray[np.intp]], npt.NDArray[np.int64] | None],
    depth: int,
    by_sum: bool = True,
) -> npt.NDArray[np.float64]:
    """`scores` with the first `depth` ranked chunks put in `rank_sum_order` (`by_sum`, else `best_rank_order`) of the
    ranks `head_ranks` gives them (None: no ranking, the order stands): their scores handed out again in that order (so
    the scores still fall down the ranking), every other score as it was."""
    head = descending_order(scores)[:depth]
    head = head[np.isfinite(scores[head])]  # a chunk the ranking may not return stays out of it
    table = head_ranks(head) if len(head) > 1 else None
    if table is None or table.shape[1] == 0:
        return scores
    rescored = scores.copy()
    order = rank_sum_order(table) if by_sum else best_rank_order(table)
    rescored[head[order]] = scores[head]  # `head` is best first: the best score to the new first
    return rescored


def top_positions(scores: npt.NDArray[np.float64], k: int, allowed: npt.NDArray[np.bool_] | None = None) -> list[int]:
    """Positions of the k best scores, best first, optionally among `allowed` positions only."""
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
        k = min(k, int(allowed.sum()))
    k = min(k, len(scores))
    if k <= 0:
        return []
    order = descending_order(scores)[:k]
    return [int(i) for i in order]
