"""What the graph retriever's stages hand each other (internal; the public result is retrieval.models)."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from retrieval.models import EntityMatch, Fact


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


class PublicationMention(BaseModel):
    surface: str  # as written in the question
    key: str
    name: str


class DateWindow(BaseModel):
    """A closed interval of publication dates the question names ("on October 5, 2023", "in September 2023")."""

    text: str
    start: date
    end: date


class QuestionAnalysis(BaseModel):
    """Stage 1's output: entity mentions, named publications, date windows, and a before/after cue."""

    question: str
    mentions: list[Mention] = Field(default_factory=list)
    publications: list[PublicationMention] = Field(default_factory=list)
    dates: list[DateWindow] = Field(default_factory=list)
    order: Literal["before", "after"] | None = None
    extractors: list[str] = Field(default_factory=list)


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


class CandidateChunk(BaseModel):
    chunk_id: str
    document_id: str
    title: str
    source: str | None = None
    published_at: date | None = None
    text: str
    entities: int = 0  # matched entities the chunk mentions
    mentions: int = 0
    named: bool = False  # from a publication the question names
    in_window: bool = False  # published inside a date window the question names


class TemplateOutput(BaseModel):
    key: list[RawFact] = Field(default_factory=list)
    bridge: list[list[RawFact]] = Field(default_factory=list)  # each path: two facts through one intermediate
    direct: list[RawFact] = Field(default_factory=list)
    candidates: list[CandidateChunk] = Field(default_factory=list)


class FilteredFacts(BaseModel):
    facts: list[Fact] = Field(default_factory=list)
    entities: list[EntityMatch] = Field(default_factory=list)
