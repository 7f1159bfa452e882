"""Clause-level pieces of a question (roughly one claim each) and the clause each publication mention governs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from graphwire.retrieval.question.dates import MONTHS
from graphwire.schema.lexicon import word_list

if TYPE_CHECKING:
    from graphwire.retrieval.question.outlets import PublicationMention

_SEGMENT_BREAK = re.compile(
    r"\s*[,;:?]\s+(?:(?:and|while|whereas|but)\s+)?(?:also\s+)?|\s+(?:and|while|whereas|but|as\s+well\s+as)\s+(?:also\s+)?"
)
# Words that say where a claim was reported, not what it claims: a segment made only of these carries no claim.
_FRAME_WORDS = word_list("reporting_frame_words")  # schema/lexicon/reporting_frame_words.txt
MIN_CLAIM_WORDS = 3


class Segment(BaseModel):
    """A stretch of the question between clause breaks (commas, "and", "while", ...), i.e. roughly one claim."""

    text: str
    start: int
    end: int
    claim_words: int  # words that are not reporting frame, outlet names or dates

    @property
    def is_claim(self) -> bool:
        return self.claim_words >= MIN_CLAIM_WORDS


def split_segments(text: str, mentions: Sequence[PublicationMention] = ()) -> list[Segment]:
    """Clause-level segments of `text`; a segment too thin to hold a claim is merged into the one before it."""
    cuts = [0, *(pos for m in _SEGMENT_BREAK.finditer(text) for pos in (m.start(), m.end())), len(text)]
    segments: list[Segment] = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=True):
        if end <= start:
            continue
        words = _claim_words(text[start:end], start, mentions)
        if segments and (words < MIN_CLAIM_WORDS or segments[-1].claim_words < MIN_CLAIM_WORDS):
            last = segments[-1]
            segments[-1] = Segment(
                text=text[last.start : end], start=last.start, end=end, claim_words=last.claim_words + words
            )
        else:
            segments.append(Segment(text=text[start:end], start=start, end=end, claim_words=words))
    return segments


def _claim_words(piece: str, offset: int, mentions: Sequence[PublicationMention]) -> int:
    blanked = list(piece)
    for mention in mentions:
        for i in range(max(mention.start, offset), min(mention.end, offset + len(piece))):
            blanked[i - offset] = " "
    words = re.findall(r"[A-Za-z][A-Za-z'\-]*|\d+", "".join(blanked))
    return sum(1 for w in words if w.lower() not in _FRAME_WORDS and w.lower() not in MONTHS and not w.isdigit())


_CLAUSE_BREAK = re.compile(r"[,;?]\s+(?:and\s+|while\s+|whereas\s+|but\s+)?|\s+(?:and|while|whereas|but)\s+")


def with_clauses(text: str, mentions: list[PublicationMention]) -> list[PublicationMention]:
    """A mention's clause runs from the last clause break before it to the next mention; when that holds no claim
    ("as reported by TechCrunch?"), it is the claim segment around the mention instead."""
    segments = split_segments(text, mentions)
    for i, mention in enumerate(mentions):
        floor = mentions[i - 1].end if i else 0
        breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, floor, mention.start)]
        start = breaks[-1] if breaks else floor
        end = mentions[i + 1].start if i + 1 < len(mentions) else len(text)
        if _claim_words(text[start:end], start, mentions) < MIN_CLAIM_WORDS:
            around = next((seg for seg in segments if seg.start <= mention.start < seg.end), None)
            start, end = (around.start, around.end) if around else (start, end)
        mention.clause = text[start:end].strip(" ,;'\"")
    return mentions
