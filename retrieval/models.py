"""What every retriever returns and every answerer produces; the API and the evaluation harness share them."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from graphwire.core.documents import Chunk
from graphwire.retrieval.answer.check_result import AnswerCheck
from graphwire.retrieval.question import PublicationMention


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

    def evidence_at(self, i: int) -> str | None:
        """The sentence the fact was read from in its `i`-th chunk (`evidence` runs beside `chunk_ids`), if kept."""
        return self.evidence[i] if i < len(self.evidence) else None


class ChunkRecord(BaseModel):
    """A chunk as retrieval reads it: its text and the document metadata it carries."""

    chunk_id: str
    document_id: str
    title: str
    source: str | None = None
    published_at: date | None = None
    locator: str | None = None  # where in its document: "p. 4" or a heading path
    text: str


class RankedChunk(ChunkRecord):
    score: float = 0.0
    retrieved_by: str | None = None  # the mode that ranked it, where a mode fills its ranking from another

    @classmethod
    def from_chunk(cls, chunk: Chunk, score: float) -> RankedChunk:
        """A stored chunk (the vector store's, the flat index's) with its score."""
        return cls(chunk_id=chunk.id, document_id=chunk.document_id, title=chunk.title, source=chunk.source,
                   published_at=chunk.published_at, locator=chunk.locator, text=chunk.text,
                   score=float(score))  # fmt: skip

    @classmethod
    def from_record(cls, record: ChunkRecord, score: float) -> RankedChunk:
        """Any ChunkRecord (the graph's candidate chunks carry more) reduced to the chunk and its score."""
        return cls(**record.model_dump(include=set(ChunkRecord.model_fields)), score=float(score))


class Excerpt(BaseModel):
    """A passage of a chunk behind the result's facts, cut around the fact's evidence, for answerers to quote."""

    chunk_id: str
    title: str
    source: str | None = None
    published_at: date | None = None
    locator: str | None = None
    text: str


class QuestionSummary(BaseModel):
    """What the retriever read from the question that answerers act on (the graph retriever's stage 1)."""

    yes_no: bool = False
    order: Literal["before", "after"] | None = None  # the before/after cue of a temporal question
    outlets: list[PublicationMention] = Field(default_factory=list)  # one per distinct corpus outlet, in order
    unknown_publications: list[str] = Field(default_factory=list)  # outlets named that the graph does not have


class RetrievalResult(BaseModel):
    """Ranked chunks (best first) plus, for graph modes, the facts and matched entities behind them.

    `analysis`, `excerpts` and `abstain_reason` are what answerers and the API rely on; `details` is diagnostics
    only (per-mode, untyped: the router's choice, PPR seeds, hybrid's contribution, ...).
    """

    mode: str
    chunks: list[RankedChunk] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    entities: list[EntityMatch] = Field(default_factory=list)
    analysis: QuestionSummary | None = None  # None: the mode does not analyse questions
    excerpts: list[Excerpt] = Field(default_factory=list)
    abstain_reason: str | None = None  # set when the retriever already knows there is nothing to answer from
    timings_ms: dict[str, float] = Field(default_factory=dict)
    details: dict[str, Any] = Field(default_factory=dict)


class Usage(BaseModel):
    llm_calls: int = Field(default=0, description="LLM requests made for this answer.")
    prompt_tokens: int = Field(default=0, description="Prompt tokens those requests used.")
    completion_tokens: int = Field(default=0, description="Completion tokens those requests used.")


class Citation(BaseModel):
    chunk_id: str = Field(description="The cited chunk.")
    title: str = Field(description="Title of the chunk's article.")
    publication: str | None = Field(default=None, description="The article's outlet, if known.")
    published_at: date | None = Field(default=None, description="The article's publication date, if known.")
    locator: str | None = Field(
        default=None,
        description='Where in the document the chunk is: a page ("p. 4", "pp. 4-5") or a heading '
        'path ("Results > Revenue"); absent for documents without pages or headings.',
    )
    quote: str | None = Field(
        default=None,
        description="The sentence of the chunk the answer rests on, word for word (answers without an LLM: the "
        "evidence sentence of a fact, the sentence naming an entity answer, each side of a judgement, a quoted "
        "sentence); absent when the answer rests on the chunk as a whole.",
    )

    @classmethod
    def of(cls, chunk: ChunkRecord | Excerpt, quote: str | None = None) -> Citation:
        """The citation of a retrieved chunk or of an excerpt of one (its outlet is the chunk's `source`)."""
        return cls(
            chunk_id=chunk.chunk_id,
            title=chunk.title,
            publication=chunk.source,
            published_at=chunk.published_at,
            locator=chunk.locator,
            quote=quote,
        )


ABSTENTION = "Insufficient information."


class AnswerStatus(StrEnum):
    ANSWERED = "answered"
    ABSTAINED = "abstained"  # the evidence does not answer the question
    LLM_FAILED = "llm_failed"  # an abstention because the LLM could not be reached or failed: ask again later


class AnswerKind(StrEnum):
    """How an answer was made (the API's `answer_kind`)."""

    FACTS = "facts"  # composed from the graph's typed facts
    ENTITY = "entity"  # the one entity of the asked type that the retrieved sentences name
    JUDGEMENT = "judgement"  # yes, no, before or after, from a supporting sentence on each side
    QUOTE = "quote"  # the retrieved sentences that best answer the question, quoted
    GENERATED = "generated"  # written by an LLM from the retrieved passages
    ABSTENTION = "abstention"  # "Insufficient information."


class Answer(BaseModel):
    text: str
    answerer: str  # "extractive" or "llm:<model>"
    kind: AnswerKind = AnswerKind.FACTS  # how the text was made; an abstention's kind is always `abstention`
    citations: list[Citation] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    llm_error: str | None = None  # why the LLM call failed (`core.llm_retry.failure_reason`); the text abstains
    check: AnswerCheck | None = None  # each sentence against the evidence (`retrieval.answer.checked`); None: off

    @property
    def abstained(self) -> bool:
        return self.text.strip() == ABSTENTION

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> AnswerStatus:
        if self.llm_error is not None:
            return AnswerStatus.LLM_FAILED
        return AnswerStatus.ABSTAINED if self.abstained else AnswerStatus.ANSWERED

    @computed_field  # type: ignore[prop-decorator]
    @property
    def answer_kind(self) -> AnswerKind:
        return AnswerKind.ABSTENTION if self.abstained else self.kind
