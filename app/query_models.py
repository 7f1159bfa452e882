"""The bodies of POST /v1/query and /v1/retrieve (and what the MCP tools `ask` and `retrieve` return from them): one
response model per part of a retrieval, and `retrieve_payload`, which builds the retrieval's part of both bodies."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

from graphwire.retrieval.answer.check_result import AnswerCheck
from graphwire.retrieval.models import (
    AnswerKind,
    AnswerStatus,
    Citation,
    Excerpt,
    Fact,
    MatchTier,
    QuestionSummary,
    RankedChunk,
    RetrievalResult,
    Usage,
)


class EntityOut(BaseModel):
    mention: str = Field(description="The question's text that matched.")
    node: str = Field(description="Display name of the matched graph node.")
    key: str = Field(description="Unique key of the node, `<Label>:<normalised name>`.")
    label: str = Field(description="The node's label (entity type), e.g. Organization or Publication.")
    tier: MatchTier = Field(description="How the mention matched the node: exact, prefix, substring or fuzzy.")
    score: float = Field(description="Match score, 0-100 (PPR: 0-1); higher is closer.")


class FactOut(BaseModel):
    tier: str = Field(description="KEY (between two matched entities), BRIDGE (through one intermediate) or DIRECT.")
    subject: str = Field(description="Name of the relationship's start node.")
    subject_label: str = Field(description="Label of the start node.")
    relationship: str = Field(description="Relationship type, e.g. SUPPLIES.")
    object: str = Field(description="Name of the relationship's end node.")
    object_label: str = Field(description="Label of the end node.")
    chunk_ids: list[str] = Field(description="Chunks the fact was extracted from (its provenance).")
    score: float = Field(description="The fact's rank score; higher is more relevant to the question.")
    evidence: list[str] | None = Field(
        default=None, description="Evidence sentences, one per chunk id (only with include_context)."
    )

    @classmethod
    def of(cls, fact: Fact, include_context: bool) -> FactOut:
        return cls(
            **fact.model_dump(include={"subject", "subject_label", "relationship", "object", "object_label",
                                       "chunk_ids", "score"}),
            tier=fact.tier.value,
            evidence=fact.evidence if include_context else None,
        )  # fmt: skip


class ChunkOut(BaseModel):
    chunk_id: str = Field(description="Chunk id (stable: a hash of document, position and text).")
    document_id: str = Field(description="Id of the article the chunk belongs to.")
    title: str = Field(description="Title of the article.")
    publication: str | None = Field(default=None, description="The article's outlet (corpus `source`), if known.")
    published_at: date | None = Field(default=None, description="The article's publication date, if known.")
    score: float = Field(description="The mode's score for this chunk; chunks are returned best first.")
    text: str | None = Field(default=None, description="The chunk's text (only with include_context).")

    @classmethod
    def of(cls, chunk: RankedChunk, include_context: bool) -> ChunkOut:
        return cls(
            **chunk.model_dump(include={"chunk_id", "document_id", "title", "published_at", "score"}),
            publication=chunk.source,
            text=chunk.text if include_context else None,
        )


class ExcerptOut(BaseModel):
    chunk_id: str = Field(description="The chunk the excerpt is cut from.")
    title: str = Field(description="Title of the chunk's article.")
    publication: str | None = Field(default=None, description="The article's outlet, if known.")
    published_at: date | None = Field(default=None, description="The article's publication date, if known.")
    text: str = Field(description="About EXCERPT_CHARS characters around the fact's evidence.")

    @classmethod
    def of(cls, excerpt: Excerpt) -> ExcerptOut:
        return cls(
            chunk_id=excerpt.chunk_id,
            title=excerpt.title,
            publication=excerpt.source,
            published_at=excerpt.published_at,
            text=excerpt.text,
        )


class OutletOut(BaseModel):
    name: str = Field(description="The outlet's display name.")
    sources: list[str] = Field(description="The corpus `source` values it stands for.")
    clause: str = Field(description="The part of the question about this outlet.")


class AnalysisOut(BaseModel):
    yes_no: bool = Field(description="The question asks for yes or no.")
    order: Literal["before", "after"] | None = Field(
        default=None, description="The before/after cue of a temporal question, if any."
    )
    outlets: list[OutletOut] = Field(description="Outlets of the corpus the question names, in question order.")
    unknown_publications: list[str] = Field(
        description="Outlets the question names that the graph does not have (the answerer then abstains)."
    )

    @classmethod
    def of(cls, summary: QuestionSummary) -> AnalysisOut:
        return cls(
            yes_no=summary.yes_no,
            order=summary.order,
            outlets=[OutletOut(name=o.name, sources=o.sources, clause=o.clause) for o in summary.outlets],
            unknown_publications=summary.unknown_publications,
        )


class RetrieveResponse(BaseModel):
    question: str = Field(description="The question as answered (surrounding whitespace removed).")
    mode: str = Field(description="The retrieval mode that ran (`auto` reports its choice in details.router).")
    entities: list[EntityOut] = Field(description="Graph nodes the question matched (graph modes).")
    facts: list[FactOut] = Field(description="KEY/BRIDGE/DIRECT facts behind the chunks (graph modes).")
    chunks: list[ChunkOut] = Field(description="Ranked chunks, best first, at most top_k.")
    analysis: AnalysisOut | None = Field(
        default=None, description="What the graph retriever read from the question (graph, hybrid; auto when routed)."
    )
    excerpts: list[ExcerptOut] | None = Field(
        default=None, description="Passages of the facts' chunks handed to the answerer (only with include_context)."
    )
    abstain_reason: str | None = Field(
        default=None, description="Why the retriever found nothing to answer from, when it already knows."
    )
    timings_ms: dict[str, float] = Field(description="Milliseconds per stage, and in total.")
    details: dict[str, Any] = Field(
        default_factory=dict, description="Per-mode diagnostics (router choice, PPR seeds, ...); not a stable contract."
    )


class QueryResponse(RetrieveResponse):
    answer: str = Field(description='The answer, or exactly "Insufficient information." when it abstains.')
    answerer: str = Field(description='The answerer that ran: "extractive" or "llm:<model>".')
    abstained: bool = Field(description="True when the answer is the abstention.")
    answer_status: AnswerStatus = Field(
        description="answered; abstained (the evidence does not answer it); llm_failed (an abstention because the "
        "LLM could not be reached or failed after retries: the question may be answered when asked again)."
    )
    answer_kind: AnswerKind = Field(
        description="How the answer was made: facts (composed from the graph's typed facts), entity (the one entity of "
        "the asked type the retrieved sentences name), judgement (yes, no, before or after, a supporting sentence "
        "cited on each side), quote (the retrieved sentences that speak to the question), generated (an LLM) or "
        "abstention."
    )
    llm_error: str | None = Field(
        default=None,
        description="Why the LLM call failed, when answer_status is llm_failed (e.g. the error kind, "
        "its HTTP status and the attempts made).",
    )
    citations: list[Citation] = Field(description="The chunks the answer rests on, in order of use.")
    check: AnswerCheck | None = Field(
        default=None,
        description="Each sentence of the answer against the retrieved evidence: its score, whether it is supported, "
        "the evidence sentences and chunks it rests on, what they lack; absent when ANSWER_CHECK is off.",
    )
    usage: Usage = Field(
        description="LLM calls and tokens this request cost: the question's alias call and the answer."
    )


class ModesResponse(BaseModel):
    modes: list[str] = Field(description="Retrieval modes, for the `mode` field of /v1/query and /v1/retrieve.")
    answerers: list[str] = Field(description="Answerers, for the `answerer` field of /v1/query.")


def retrieve_payload(question: str, result: RetrievalResult, include_context: bool) -> dict[str, Any]:
    return {
        "question": question,
        "mode": result.mode,
        "entities": [
            EntityOut(mention=e.mention, node=e.name, key=e.key, label=e.label, tier=e.tier, score=e.score)
            for e in result.entities
        ],
        "facts": [FactOut.of(f, include_context) for f in result.facts],
        "chunks": [ChunkOut.of(c, include_context) for c in result.chunks],
        "analysis": AnalysisOut.of(result.analysis) if result.analysis is not None else None,
        "excerpts": [ExcerptOut.of(e) for e in result.excerpts] if include_context else None,
        "abstain_reason": result.abstain_reason,
        "timings_ms": dict(result.timings_ms),
        "details": dict(result.details),
    }
