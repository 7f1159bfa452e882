"""Temporal and comparison cues ("subsequent", "same day", "while", "in contrast", yes/no form) and the whole
analysis of a question: `QuestionSignals`, with the publication each date belongs to."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from pydantic import BaseModel, Field

from graphwire.retrieval.question.clauses import Segment, split_segments
from graphwire.retrieval.question.dates import DateMention, DateRelation, find_dates
from graphwire.retrieval.question.outlets import OutletGazetteer, PublicationMention
from graphwire.schema.lexicon import phrase_pattern

_YES_NO_START = re.compile(
    rf"^\s*(?:{phrase_pattern('yes_no_preambles')}\b[^?]*?,\s*)?"
    rf"{phrase_pattern('yes_no_auxiliaries')}\b",
    re.IGNORECASE,
)
# Cue words are schema lexicon files (schema/lexicon/temporal_cues.txt, comparison_cues.txt).
_TEMPORAL_CUES = re.compile(rf"\b{phrase_pattern('temporal_cues')}\b", re.IGNORECASE)
_COMPARISON_CUES = re.compile(rf"\b{phrase_pattern('comparison_cues')}\b", re.IGNORECASE)
_SAME_SOURCE = re.compile(
    r"\b(?:the\s+same\s+(?:source|publication|outlet|news\s+source)|both\s+from)\b", re.IGNORECASE
)


class QuestionSignals(BaseModel):
    question: str
    publications: list[PublicationMention] = Field(default_factory=list)
    dates: list[DateMention] = Field(default_factory=list)
    yes_no: bool = False
    temporal_cues: list[str] = Field(default_factory=list)
    comparison_cues: list[str] = Field(default_factory=list)
    same_source: bool = False  # "the same source": a later report from an outlet already named
    segments: list[Segment] = Field(default_factory=list)  # clause-level pieces, roughly one claim each

    @property
    def sources(self) -> list[str]:
        """Every corpus `source` value the question names, in order of first mention."""
        seen: dict[str, None] = {}
        for mention in self.publications:
            seen.update(dict.fromkeys(mention.sources))
        return list(seen)

    @property
    def outlets(self) -> list[PublicationMention]:
        """One mention per distinct outlet in the corpus (first mention wins), in question order."""
        first: dict[tuple[str, ...], PublicationMention] = {}
        for mention in self.publications:
            if mention.sources:
                first.setdefault(tuple(mention.sources), mention)
        return list(first.values())

    @property
    def unknown_publications(self) -> list[str]:
        """Outlets the question names that the corpus does not have."""
        return list(dict.fromkeys(m.name for m in self.publications if not m.sources))

    @property
    def exact_dates(self) -> list[date]:
        return [d for m in self.dates if m.relation is DateRelation.ON and (d := m.as_date()) is not None]

    def dates_for(self, publication_index: int) -> list[DateMention]:
        return [m for m in self.dates if m.publication == publication_index]

    def date_admits(self, published: date | None, publication_index: int | None = None) -> bool | None:
        """Whether a chunk published on `published` fits the question's dates (None: the question gives no date)."""
        relevant = self.dates if publication_index is None else self.dates_for(publication_index) or self.dates
        if not relevant or published is None:
            return None
        return any(m.admits(published) for m in relevant)


def question_signals(question: str, gazetteer: OutletGazetteer) -> QuestionSignals:
    publications = gazetteer.find(question)
    dates = _attach_dates(find_dates(question), publications)
    return QuestionSignals(
        question=question,
        publications=publications,
        dates=dates,
        yes_no=_YES_NO_START.search(question) is not None,
        temporal_cues=_cues(_TEMPORAL_CUES, question),
        comparison_cues=_cues(_COMPARISON_CUES, question),
        same_source=_SAME_SOURCE.search(question) is not None,
        segments=split_segments(question, publications),
    )


def _cues(pattern: re.Pattern[str], text: str) -> list[str]:
    return list(dict.fromkeys(re.sub(r"\s+", " ", m.group(0).lower()) for m in pattern.finditer(text)))


def _attach_dates(dates: list[DateMention], publications: Sequence[PublicationMention]) -> list[DateMention]:
    """A date belongs to the publication named nearest before it (dates follow the outlet they qualify)."""
    for mention in dates:
        owner = None
        for i, publication in enumerate(publications):
            if publication.start <= mention.start:
                owner = i
        mention.publication = owner
    return dates
