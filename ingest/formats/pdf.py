"""PDF with a text layer (pypdf, the optional extra `documents`): the text of each page, a segment per page, and the
title, author and date of the document's metadata."""

from __future__ import annotations

import io
import logging
import re
from datetime import date
from typing import Any

from graphwire.ingest.formats.base import DocumentError, TextBuilder

MAGIC = b"%PDF-"
MAX_TITLE_CHARS = 150  # a longer first line is running text, not a title: the file name is the title then
_HYPHENATED = re.compile(r"(\w)-\n(\w)")
EXTRA_HINT = "install the extra: pip install 'graphwire[documents]'"


def read_pdf(data: bytes, stem: str) -> dict[str, Any]:
    """One record; DocumentError for an encrypted, scanned (no text layer) or corrupt PDF."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import FileNotDecryptedError, PdfReadError
    except ImportError as exc:
        raise DocumentError(f"reading PDF needs pypdf: {EXTRA_HINT}") from exc
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about damaged files are our one-line reason
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError("encrypted PDF: it needs a password, which ingestion does not take")
        body = TextBuilder()
        pages = len(reader.pages)
        first_line = None
        for number, page in enumerate(reader.pages, start=1):
            raw = page.extract_text() or ""
            first_line = first_line or _first_line(raw)
            body.mark(page=number)
            body.add(page_text(raw))
        meta = reader.metadata
    except DocumentError:
        raise
    except (FileNotDecryptedError, NotImplementedError) as exc:
        raise DocumentError(f"encrypted PDF: {exc}") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as exc:
        raise DocumentError(f"corrupt or truncated PDF: {_short(exc)}") from exc
    if not body.text.strip():
        raise DocumentError(f"no text layer on any of its {pages} pages (scanned?): OCR is not configured")
    title = _meta_text(meta, "title") or first_line or stem
    return body.record(title=title, author=_meta_text(meta, "author"), published_at=_meta_date(meta))


def page_text(text: str) -> str:
    """A page's lines as running text: a word hyphenated at a line end joined again, other line ends a space."""
    return " ".join(_HYPHENATED.sub(r"\1\2", text).split())


def _meta_text(meta: Any, name: str) -> str | None:
    try:
        value = getattr(meta, name, None) if meta is not None else None
    except (ValueError, TypeError, KeyError):
        return None
    return str(value).strip() or None if value else None


def _meta_date(meta: Any) -> date | None:
    for name in ("creation_date", "modification_date"):
        try:
            value = getattr(meta, name, None) if meta is not None else None
        except (ValueError, TypeError, KeyError):  # a malformed D:... date in the metadata
            continue
        if value is not None:
            day: date = value.date()
            return day
    return None


def _first_line(text: str) -> str | None:
    """The first line of a page's text when it is short enough to be a title."""
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    return line if 0 < len(line) <= MAX_TITLE_CHARS else None


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__
