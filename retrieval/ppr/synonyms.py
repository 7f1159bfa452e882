"""Synonym edges between entities with near-identical names (HippoRAG 2), found without comparing every pair."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from graphwire.core.names import token_form

MAX_BUCKET = 200  # a token shared by more names than this (e.g. "the") is too common to block on


def synonym_pairs(names: Sequence[str], threshold: float) -> list[tuple[int, int]]:
    """Pairs (i < j) of distinct entities whose normalised names reach `threshold` (rapidfuzz ratio, 0-100).

    Candidates share at least one token, so the work is per token bucket, not quadratic in the number of entities.
    """
    norms = [token_form(n) for n in names]
    buckets: dict[str, list[int]] = defaultdict(list)
    for idx, norm in enumerate(norms):
        for token in set(norm.split()):
            buckets[token].append(idx)
    pairs: set[tuple[int, int]] = set()
    for members in buckets.values():
        if len(members) < 2 or len(members) > MAX_BUCKET:
            continue
        texts = [norms[i] for i in members]
        scores = process.cdist(texts, texts, scorer=fuzz.ratio, score_cutoff=threshold)
        for a, b in zip(*scores.nonzero(), strict=True):
            i, j = members[int(a)], members[int(b)]
            if i < j:
                pairs.add((i, j))
    return sorted(pairs)
