"""What the MCP tools take and return beyond the HTTP API's own models (app/query_models.py, app/documents.py,
app/graph_access.py, the job models): leaner answers for an agent's context, and the resource URI of every citation,
passage and document, so an agent opens what it cites with `resources/read`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from graphwire.app.documents import ChunkPlace, DocumentDetail, DocumentItem
from graphwire.app.query_models import ChunkOut, EntityOut, FactOut
from graphwire.retrieval.models import AnswerStatus, Citation, Usage

DOCUMENT_TEMPLATE = "graphwire://documents/{+id}"
CHUNK_TEMPLATE = "graphwire://chunks/{id}"


def document_uri(document_id: str) -> str:
    """The document's resource URI, its id percent-encoded (`{+id}` takes a plain url as well)."""
    return f"graphwire://documents/{quote(document_id, safe='')}"


def chunk_uri(chunk_id: str) -> str:
    return f"graphwire://chunks/{quote(chunk_id, safe='')}"


class DocumentIn(BaseModel):
    """One document to ingest: the fields of a record of `graphwire ingest` and POST /v1/documents."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, description="The document's title (part of each chunk's prefix and citations).")
    body: str = Field(min_length=1, description="The text.")
    source: str | None = Field(default=None, description="The outlet or publisher, e.g. Harbor Times.")
    published_at: str | None = Field(
        default=None, description="A date or date-time, ISO 8601 (2026-03-02); date-aware questions use it."
    )
    url: str | None = Field(
        default=None, description="The document's id when given (else a hash of title, source, date and body)."
    )
    author: str | None = Field(default=None, description="The author, kept on the document.")
    category: str | None = Field(default=None, description="A category, kept on the document.")
    access: list[str] | None = Field(
        default=None, description="Groups and principal names that may read it; absent: everyone in the workspace."
    )


class CitationRef(Citation):
    uri: str = Field(description="The cited chunk as a resource (graphwire://chunks/{id}): its text and source.")


class AskResult(BaseModel):
    question: str = Field(description="The question as answered (surrounding whitespace removed).")
    mode: str = Field(description="The retrieval mode that ran.")
    answer: str = Field(description='The answer, or exactly "Insufficient information." when it abstains.')
    answer_status: AnswerStatus = Field(
        description="answered; abstained (the evidence does not answer it); llm_failed (the LLM could not be reached "
        "or failed after retries: asking again may answer it)."
    )
    abstained: bool = Field(description="True when the answer is the abstention.")
    answerer: str = Field(description='The answerer that ran: "extractive" or "llm:<model>".')
    llm_error: str | None = Field(default=None, description="Why the LLM failed, when answer_status is llm_failed.")
    citations: list[CitationRef] = Field(description="The chunks the answer rests on, in order of use.")
    facts: list[FactOut] = Field(description="The graph facts behind the answer (graph modes), best first.")
    entities: list[EntityOut] = Field(description="Graph nodes the question matched (graph modes).")
    abstain_reason: str | None = Field(
        default=None, description="Why the retriever found nothing to answer from, when it already knows."
    )
    timings_ms: dict[str, float] = Field(description="Milliseconds per stage, the answer and the whole request.")
    usage: Usage = Field(description="LLM calls and tokens the question cost.")

    @classmethod
    def of(cls, payload: dict[str, Any]) -> AskResult:
        """From the body of POST /v1/query (`answer_query`)."""
        fields = {name: payload.get(name) for name in cls.model_fields}
        fields["citations"] = [CitationRef(**c.model_dump(), uri=chunk_uri(c.chunk_id)) for c in payload["citations"]]
        return cls.model_validate(fields)


class Passage(ChunkOut):
    uri: str = Field(description="The chunk as a resource (graphwire://chunks/{id}).")


class RetrieveResult(BaseModel):
    question: str = Field(description="The question as retrieved for.")
    mode: str = Field(description="The retrieval mode that ran.")
    passages: list[Passage] = Field(description="Ranked chunks, best first, at most top_k.")
    facts: list[FactOut] = Field(description="KEY/BRIDGE/DIRECT facts behind the passages (graph modes).")
    entities: list[EntityOut] = Field(description="Graph nodes the question matched (graph modes).")
    abstain_reason: str | None = Field(
        default=None, description="Why the retriever found nothing to answer from, when it already knows."
    )
    timings_ms: dict[str, float] = Field(description="Milliseconds per stage, and in total.")

    @classmethod
    def of(cls, payload: dict[str, Any]) -> RetrieveResult:
        """From the body of POST /v1/retrieve (`retrieve_only`)."""
        fields = {name: payload.get(name) for name in cls.model_fields}
        fields["passages"] = [Passage(**c.model_dump(), uri=chunk_uri(c.chunk_id)) for c in payload["chunks"]]
        return cls.model_validate(fields)


class DocumentRef(DocumentItem):
    uri: str = Field(description="The document as a resource (graphwire://documents/{id}): its text.")


class DocumentPage(BaseModel):
    items: list[DocumentRef] = Field(description="One page, newest first (undated last).")
    total: int = Field(description="Documents matching the filters, all pages.")


class DocumentOut(DocumentDetail):
    uri: str = Field(description="The document as a resource (graphwire://documents/{id}).")
    text: str | None = Field(
        default=None, description="The body as stored in its chunks (only with include_text), overlaps joined."
    )
    chunk_ids: list[str] | None = Field(
        default=None, description="Its chunks' ids in order (only with include_text): graphwire://chunks/{id}."
    )
    chunk_places: list[ChunkPlace] | None = Field(
        default=None, description="Where each chunk lies (only with include_text): page or section, offsets."
    )
