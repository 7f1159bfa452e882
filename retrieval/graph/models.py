"""What the graph retriever's stages hand each other (internal; the public result is retrieval.models)."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from graphwire.retrieval.models import ChunkRecord, EntityMatch, Fact
from graphwire.retrieval.question import QuestionSignals

_BEFORE_CUES = frozenset({"before", "earlier", "prior to", "previous", "previously", "first"})
_AFTER_CUES = frozenset({"after", "later", "subsequent", "subsequently", "following", "since", "then"})


class MentionOrigin(StrEnum):
    GAZETTEER = "gazetteer"  # a question span whose normalised text is a node name or alias
    SPAN = "span"  # a capitalised span the name index does not know: matched fuzzily in stage 2
    LLM = "llm"  # proposed by the LLM alias extractor


class Mention(BaseModel):
    text: str
    origin: MentionOrigin
    start: int = -1
    end: int = -1
    aliases: list[str] = Field(default_factory=list)
    exact_keys: list[str] = Field(default_factory=list)  # nodes the name index already matched exactly


class PublicationMatch(BaseModel):
    """A Publication node the question names (the outlet as a graph node; `retrieval.question.PublicationMention` is
    the outlet as text in the question)."""

    surface: str  # as written in the question
    key: str
    name: str


class DateWindow(BaseModel):
    """Publication dates a question admits: [start, end] (either open), or a month-day range when it gives no year
    ("on October 5" -> md 10-05..10-05). `sources`: the outlets the date qualifies (empty: every chunk)."""

    text: str
    start: date | None = None
    end: date | None = None
    md_start: str | None = None
    md_end: str | None = None
    sources: list[str] = Field(default_factory=list)

    def as_param(self) -> dict[str, object]:
        """The window as the Cypher statements take it. What a window admits is decided here, once: a chunk
        published on `day` (ISO "YYYY-MM-DD") is inside when `lo <= day <= hi` and `md_lo <= day[5:] <= md_hi`
        (open ends and missing month-day ranges become bounds every date satisfies); `start`/`end` stay for the
        Date-node lookup of bounded windows."""
        start, end = self.start.isoformat() if self.start else None, self.end.isoformat() if self.end else None
        return {
            "start": start,
            "end": end,
            "lo": start or "0000-00-00",
            "hi": end or "9999-99-99",
            "md_lo": self.md_start or "00-00",
            "md_hi": self.md_end or "99-99",
            "sources": self.sources,
        }


class QuestionAnalysis(BaseModel):
    """Stage 1's output: entity mentions, named publications (as graph nodes and as corpus sources), date windows,
    and the shared question analysis (yes/no form, temporal and comparison cues)."""

    question: str
    mentions: list[Mention] = Field(default_factory=list)
    publications: list[PublicationMatch] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)  # corpus `source` values the question names
    unknown_publications: list[str] = Field(default_factory=list)  # outlets named that the graph does not have
    dates: list[DateWindow] = Field(default_factory=list)
    signals: QuestionSignals
    extractors: list[str] = Field(default_factory=list)

    @property
    def order(self) -> Literal["before", "after"] | None:
        """The before/after cue of a temporal question, if any (the first cue wins)."""
        for cue in self.signals.temporal_cues:
            if cue in _BEFORE_CUES:
                return "before"
            if cue in _AFTER_CUES:
                return "after"
        return None


class RawFact(BaseModel):
    """One relationship as a template returned it (direction preserved), before tiering and caps."""

    subject: str
    subject_key: str
    subject_label: str
    relationship: str
    object: str
    object_key: str
    object_label: str
    chunk_ids: list[str]
    evidence: list[str] = Field(default_factory=list)
    named_hits: int = 0  # supporting chunks from a publication the question names
    hops: int = 1

    @property
    def identity(self) -> tuple[str, str, str]:
        return (self.subject_key, self.relationship, self.object_key)


class CandidateChunk(ChunkRecord):
    entities: int = 0  # matched entities the chunk mentions
    mentions: int = 0
    named: bool = False  # from a publication the question names
    in_window: bool = False  # published inside a date window the question names


class TemplateOutput(BaseModel):
    key: list[RawFact] = Field(default_factory=list)
    bridge: list[list[RawFact]] = Field(default_factory=list)  # each path: two facts through one intermediate
    direct: list[RawFact] = Field(default_factory=list)
    chain: list[RawFact] = Field(default_factory=list)  # asked-type relationships one hop past the others
    candidates: list[CandidateChunk] = Field(default_factory=list)


class FilteredFacts(BaseModel):
    facts: list[Fact] = Field(default_factory=list)
    entities: list[EntityMatch] = Field(default_factory=list)
