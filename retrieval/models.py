"""What every retriever returns and every answerer produces; the API and the evaluation harness share them."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from core.documents import Chunk


class MatchTier(StrEnum):
    EXACT = "exact"
    PREFIX = "prefix"
    SUBSTRING = "substring"
    FUZZY = "fuzzy"


class FactTier(StrEnum):
    KEY = "KEY"  # a relationship between two matched entities
    BRIDGE = "BRIDGE"  # a path joining two matched entities through one intermediate
    DIRECT = "DIRECT"  # a relationship of a single matched entity


class EntityMatch(BaseModel):
    mention: str
    key: str
    name: str
    label: str
    tier: MatchTier
    score: float


class Fact(BaseModel):
    tier: FactTier
    subject: str
    subject_label: str
    relationship: str
    object: str
    object_label: str
    chunk_ids: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    score: float = 0.0

    def render(self) -> str:
        return f"[{self.tier.value}] {self.subject} -[{self.relationship}]-> {self.object}"


class ChunkRecord(BaseModel):
    """A chunk as retrieval reads it: its text and the document metadata it carries."""

    chunk_id: str
    document_id: str
    title: str
    source: str | None = None
    published_at: date | None = None
    text: str


class RankedChunk(ChunkRecord):
    score: float = 0.0

    @classmethod
    def from_chunk(cls, chunk: Chunk, score: float) -> RankedChunk:
        """A stored chunk (the vector store's, the flat index's) with its score."""
        return cls(chunk_id=chunk.id, document_id=chunk.document_id, title=chunk.title, source=chunk.source,
                   published_at=chunk.published_at, text=chunk.text, score=float(score))  # fmt: skip

    @classmethod
    def from_record(cls, record: ChunkRecord, score: float) -> RankedChunk:
        """Any ChunkRecord (the graph's candidate chunks carry more) reduced to the chunk and its score."""
        return cls(**record.model_dump(include=set(ChunkRecord.model_fields)), score=float(score))


class RetrievalResult(BaseModel):
    """Ranked chunks (best first) plus, for graph modes, the facts and matched entities behind them."""

    mode: str
    chunks: list[RankedChunk] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    entities: list[EntityMatch] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    details: dict[str, Any] = Field(default_factory=dict)  # e.g. the router's choice and reason


class Usage(BaseModel):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Citation(BaseModel):
    chunk_id: str
    title: str
    publication: str | None = None
    published_at: date | None = None


ABSTENTION = "Insufficient information."


class Answer(BaseModel):
    text: str
    answerer: str  # "extractive" or "llm:<model>"
    citations: list[Citation] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)

    @property
    def abstained(self) -> bool:
        return self.text.strip() == ABSTENTION
