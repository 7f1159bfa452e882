"""Which reader a file or a fetched body goes to, by its content first (magic bytes, an HTML page's or a feed's root
element), its name or media type after: a folder may mix formats, and a misnamed file is still read for what it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from graphwire.ingest.formats.base import DocumentError, LoadOptions, check_size
from graphwire.ingest.formats.docx import is_docx, read_docx
from graphwire.ingest.formats.feed import FEED_MEDIA_TYPES, looks_like_feed
from graphwire.ingest.formats.html import looks_like_html, read_html
from graphwire.ingest.formats.pdf import MAGIC as PDF_MAGIC
from graphwire.ingest.formats.pdf import read_pdf

Kind = Literal["pdf", "docx", "html", "feed", "json", "jsonl", "text"]
DOCUMENT_KINDS: frozenset[str] = frozenset({"pdf", "docx", "html"})
SUFFIXES: dict[str, Kind] = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".htm": "html", ".xhtml": "html",
                             ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".txt": "text", ".md": "text",
                             ".markdown": "text", ".rss": "feed", ".atom": "feed"}  # fmt: skip
MEDIA_TYPES: dict[str, Kind] = {"application/pdf": "pdf", "text/html": "html", "application/xhtml+xml": "html",
                                "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
                                "text/plain": "text", "text/markdown": "text",
                                **{media_type: "feed" for media_type in FEED_MEDIA_TYPES}}  # fmt: skip
SNIFF_BYTES = 4096


def sniff(data: bytes, name: str = "", media_type: str = "") -> Kind | None:
    """The format of `data` (the whole body, or a file's first SNIFF_BYTES with its name): magic bytes, then the
    media type, then the name's suffix; None for a file no reader takes."""
    if PDF_MAGIC in data[:1024]:
        return "pdf"
    if data.startswith(b"PK\x03\x04") and (is_docx(data) or Path(name).suffix.lower() == ".docx"):
        return "docx"
    if looks_like_html(data):
        return "html"
    if looks_like_feed(data):
        return "feed"
    return MEDIA_TYPES.get(media_type) or SUFFIXES.get(Path(name).suffix.lower())


def sniff_file(path: Path) -> Kind | None:
    with path.open("rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if head.startswith(b"PK\x03\x04") and path.suffix.lower() != ".docx":
        return "docx" if is_docx(path.read_bytes()) else SUFFIXES.get(path.suffix.lower())
    return sniff(head, path.name)


def read_document(
    data: bytes, kind: str, name: str, options: LoadOptions, *, charset: str | None = None, url: str | None = None
) -> dict[str, Any]:
    """The record of one PDF, DOCX or HTML document (title, body, metadata, segments), or DocumentError."""
    check_size(data, options)
    stem = Path(name).stem.replace("_", " ").replace("-", " ") or name
    if kind == "pdf":
        record = read_pdf(data, stem)
    elif kind == "docx":
        record = read_docx(data, stem, options)
    elif kind == "html":
        record = read_html(data, stem, charset=charset)
    else:
        raise DocumentError(f"not a PDF, DOCX or HTML document ({kind})")
    return {**record, "url": url} if url else record
