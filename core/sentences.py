"""One sentence splitter for the extractor, the dictionary linker and the answerer, so their sentences agree."""

from __future__ import annotations

import re
from bisect import bisect_right

SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+|\n+")


def sentence_starts(text: str) -> list[int]:
    """Character offsets at which the sentences of `text` start (the first is always 0)."""
    return [0, *(m.end() for m in SENTENCE_END.finditer(text) if m.end() < len(text))]


def sentence_of(starts: list[int], offset: int) -> int:
    """The index of the sentence holding character `offset`."""
    return max(bisect_right(starts, offset) - 1, 0)


def sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, empty ones left out."""
    starts = sentence_starts(text)
    pieces = (text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True))
    return [piece.strip() for piece in pieces if piece.strip()]
