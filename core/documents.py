"""Documents and chunks: what ingestion writes and every retriever returns, shared by all layers."""

from __future__ import annotations

import hashlib
import re
from datetime import date
from typing import Any

from pydantic import BaseModel, Field, field_validator

from graphwire.core.access import AccessList

# NUL and the other C0 controls but tab, newline and carriage return; lone UTF-16 surrogates (JSON "\\ud800").
PREFIX_END = "]\n"  # closes the `[Source: ... | Title: ... | Published: ...]` prefix of every chunk's text


def strip_prefix(text: str) -> str:
    """The body part of a chunk's text (what the extractor reads and the answerer quotes)."""
    if text.startswith("[Source: ") and PREFIX_END in text:
        return text.split(PREFIX_END, 1)[1]
    return text


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Text safe to store and print: control characters dropped, lone surrogates replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text))


class Segment(BaseModel):
    """Where a part of an article's body starts and what names it: a page of a PDF, or a heading path."""

    start: int = Field(ge=0)  # character offset into the article's body where the part starts
    label: str = ""  # the heading path ("Results > Revenue"); empty before the first heading
    page: int | None = Field(default=None, ge=1)  # the page number of a PDF page


class Article(BaseModel):
    """One input document, in the MultiHop-RAG corpus field names, with the parts of its body (`segments`) when the
    format has pages or headings."""

    title: str = Field(min_length=1)
    body: str = Field(min_length=1)
    source: str | None = None
    published_at: date | None = None
    url: str | None = None
    author: str | None = None
    category: str | None = None
    segments: list[Segment] = Field(default_factory=list)
    access: AccessList = None  # groups and principal names that may read it; None: everyone (core/access.py)

    @field_validator("*", mode="before")
    @classmethod
    def _clean(cls, value: Any) -> Any:
        """NUL bytes never reach the graph, and a stray surrogate cannot abort a run (nor its hashing)."""
        return clean_text(value) if isinstance(value, str) else value

    @property
    def doc_id(self) -> str:
        """The url when there is one, else a hash of title, source, date and body (namesakes stay apart)."""
        if self.url:
            return self.url
        blob = "|".join([self.title, self.source or "", str(self.published_at or ""), self.body])
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]

    @property
    def content_hash(self) -> str:
        """Without `segments` when there are none and `access` when it is not set, so documents without pages,
        headings or access lists hash as they always did (a changed access list is a change: the document is
        written again, its extractions come from the cache)."""
        exclude = ({"segments"} if not self.segments else set()) | ({"access"} if self.access is None else set())
        return hashlib.sha256(self.model_dump_json(exclude=exclude).encode("utf-8")).hexdigest()


class Chunk(BaseModel):
    id: str
    document_id: str
    index: int
    text: str
    title: str
    source: str | None = None
    published_at: date | None = None
    locator: str | None = None  # where in the document: "p. 4", "pp. 4-5" or a heading path ("Results > Revenue")
    char_start: int | None = None  # offset of the chunk's body text into the document's body
    char_end: int | None = None  # offset just past it
