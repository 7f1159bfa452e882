"""What every format reader shares: the one-line error, the limits they read to, and the record they return."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from graphwire.core.documents import Segment, clean_text
from graphwire.core.settings import Settings, default_of


class DocumentError(ValueError):
    """A document that cannot become an article; its message is one line a person reads ("encrypted PDF: ...")."""


class LoadOptions(BaseModel):
    """The limits the loaders read documents and URLs to (the settings of the same names)."""

    document_max_bytes: int = Field(default=default_of("document_max_bytes"), ge=1)
    docx_max_unpacked_bytes: int = Field(default=default_of("docx_max_unpacked_bytes"), ge=1)
    fetch_timeout_s: float = Field(default=default_of("fetch_timeout_s"), gt=0)
    fetch_max_redirects: int = Field(default=default_of("fetch_max_redirects"), ge=0)
    fetch_allowed_hosts: frozenset[str] = frozenset()

    @classmethod
    def from_settings(cls, settings: Settings) -> LoadOptions:
        hosts = frozenset(h.strip().lower() for h in settings.fetch_allowed_hosts.split(",") if h.strip())
        return cls(
            document_max_bytes=settings.document_max_bytes,
            docx_max_unpacked_bytes=settings.docx_max_unpacked_bytes,
            fetch_timeout_s=settings.fetch_timeout_s,
            fetch_max_redirects=settings.fetch_max_redirects,
            fetch_allowed_hosts=hosts,
        )


class TextBuilder:
    """A body built block by block (paragraphs, table rows, pages), with the segments that name its parts."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.segments: list[Segment] = []

    def add(self, text: str) -> None:
        text = clean_text(text).strip()
        if not text:
            return
        if self.parts:
            self.parts.append("\n\n")
            self.length += 2
        self.parts.append(text)
        self.length += len(text)

    def mark(self, label: str = "", page: int | None = None) -> None:
        """The next block starts a new part: a section with heading path `label`, or page `page`."""
        start = self.length + (2 if self.parts else 0)
        if self.segments and self.segments[-1].start == start:
            self.segments.pop()  # an empty part: the later mark names where the text starts
        self.segments.append(Segment(start=start, label=label, page=page))

    def heading(self, path: str, text: str) -> None:
        """A heading starts a section named `path`; its text is a sentence of its own (a full stop added where it
        ends without punctuation), so that extraction never reads it as the start of the sentence after it."""
        self.mark(label=path)
        text = " ".join(text.split())
        self.add(text if not text or text[-1] in ".!?:;" else f"{text}.")

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def record(self, **fields: Any) -> dict[str, Any]:
        """The corpus record: the given metadata (None values left out), the body and its segments."""
        segments = [s.model_dump() for s in self.segments if s.start < self.length]
        values = {k: v.isoformat() if isinstance(v, date) else v for k, v in fields.items() if v}
        return {**values, "body": self.text, "segments": segments}


def check_size(data: bytes, options: LoadOptions) -> None:
    if len(data) > options.document_max_bytes:
        raise DocumentError(f"{len(data)} bytes, over the limit of {options.document_max_bytes} (DOCUMENT_MAX_BYTES)")
