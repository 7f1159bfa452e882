"""How joint combines its signals into one order: which linked entities count, reciprocal-rank fusion, the diversity
rule, the spread of the first places over documents."""

from __future__ import annotations

from collections import Counter

import numpy as np
import numpy.typing as npt

from graphwire.retrieval.flat.fusion import descending_order, ranks_of
from graphwire.retrieval.flat.index import Scores, WordCase
from graphwire.retrieval.models import EntityMatch, MatchTier


def linked_names(matches: list[EntityMatch], word_case: WordCase) -> list[EntityMatch]:
    """The matches that name something: not a lower-case phrase the corpus itself writes as common words ("house",
    "magazines" titling a page), not a one-word fuzzy match (an inflection: "German" for Germany)."""
    kept = []
    for match in matches:
        if not any(ch.isupper() for ch in match.mention) and word_case.is_common(match.mention):
            continue
        if match.tier is MatchTier.FUZZY and len(match.mention.split()) == 1:
            continue
        kept.append(match)
    return kept


def signal_ranks(signals: dict[str, Scores]) -> dict[str, npt.NDArray[np.int64]]:
    """Each signal's 1-based ranks, for the signals that score any chunk (computed once per request)."""
    return {name: ranks_of(scores) for name, scores in signals.items() if scores.any()}


def fuse(
    signals: dict[str, Scores],
    weights: dict[str, float],
    k: int,
    ranks: dict[str, npt.NDArray[np.int64]] | None = None,
) -> Scores:
    """Sum of weight / (k + rank) over the signals; a chunk a signal gives no positive score gets nothing from it.
    `ranks`: the signals' ranks when the caller has them already (`signal_ranks`)."""
    ranks = signal_ranks(signals) if ranks is None else ranks
    size = len(next(iter(signals.values())))
    fused = np.zeros(size, dtype=np.float64)
    for name, scores in signals.items():
        weight = weights.get(name, 0.0)
        if weight > 0 and name in ranks:
            fused += np.where(scores > 0, weight / (k + ranks[name]), 0.0)
    return fused


def diverse_order(scores: Scores, document_ids: list[str], top_k: int, per_document: int) -> list[int]:
    """Positions best first, at most `per_document` chunks of one document until `top_k` places hold others."""
    positive = np.flatnonzero(scores > 0)
    order = positive[descending_order(scores[positive])]
    if per_document <= 0:
        return [int(i) for i in order[:top_k]]
    taken: dict[str, int] = {}
    head: list[int] = []
    held: list[int] = []
    for position in order:
        document = document_ids[position]
        if taken.get(document, 0) < per_document:
            taken[document] = taken.get(document, 0) + 1
            head.append(int(position))
            if len(head) >= top_k:
                break
        elif len(held) < top_k:
            held.append(int(position))
    return (head + held)[:top_k]


def spread_head(positions: list[int], documents: list[str], head: int) -> list[int]:
    """`positions` (`documents[i]` the document of `positions[i]`) reordered so that each prefix of the first `head`
    places holds at most half its places (rounded up) from one document: the first two show two documents, the first
    four at most two chunks of one. Only chunks already in `positions` move, and the documents' first chunks keep
    their order among themselves (a ranking scored by distinct documents reads the same); `head` 0 = off."""
    pool = list(zip(positions, documents, strict=True))
    out: list[tuple[int, str]] = []
    while pool and len(out) < head:
        cap = (len(out) + 2) // 2  # half the places up to and including the next one, rounded up
        shown = Counter(document for _, document in out)
        pick = next((item for item in pool if shown[item[1]] < cap), pool[0])
        out.append(pick)
        pool.remove(pick)
    return [position for position, _ in out + pool]
