"""Documents and chunks: what ingestion writes and every retriever returns, shared by all layers."""

from __future__ import annotations

import hashlib
from datetime import date

from pydantic import BaseModel, Field


class Article(BaseModel):
    """One input document, in the MultiHop-RAG corpus field names."""

    title: str = Field(min_length=1)
    body: str = Field(min_length=1)
    source: str | None = None
    published_at: date | None = None
    url: str | None = None
    author: str | None = None
    category: str | None = None

    @property
    def doc_id(self) -> str:
        """The url when there is one, else a hash of title, source, date and body (namesakes stay apart)."""
        if self.url:
            return self.url
        blob = "|".join([self.title, self.source or "", str(self.published_at or ""), self.body])
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()


class Chunk(BaseModel):
    id: str
    document_id: str
    index: int
    text: str
    title: str
    source: str | None = None
    published_at: date | None = None
