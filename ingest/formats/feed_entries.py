"""A feed entry as a document record: the entry's full text when the feed carries it, else its linked page fetched
through the same guarded fetch as any URL (ingest/formats/fetch.py) and read by the same readers, else its summary.

The entry's own metadata wins over the page's: link as `url`, the entry's title, the entry's (or the feed's) outlet
as `source`, the entry's date as `published_at` (the page's date when the entry states none).
"""

from __future__ import annotations

from typing import Any

from graphwire.ingest.formats.base import DocumentError, LoadOptions
from graphwire.ingest.formats.dispatch import DOCUMENT_KINDS, read_document, sniff
from graphwire.ingest.formats.feed import FeedEntry
from graphwire.ingest.formats.fetch import fetch, is_url
from graphwire.ingest.formats.html import read_html
from graphwire.ingest.formats.html_tree import parse_html


def entry_record(entry: FeedEntry, options: LoadOptions) -> dict[str, Any]:
    """The record of one entry; DocumentError when neither the feed nor the linked page holds its text."""
    url = entry.link or (entry.key if is_url(entry.key) else None)
    record = _fragment(entry.content, whole=True) if entry.content else None  # a one-line "content" is a summary
    page_problem = ""
    if record is None and url:
        try:
            record = _linked_page(url, options)
        except DocumentError as exc:
            page_problem = f"the linked page: {exc}"
    if record is None and (entry.summary or entry.content):
        record = _fragment(entry.summary or entry.content or "", whole=False)
    if record is None:
        raise DocumentError(f"no text: the entry carries no content or summary{'; ' if page_problem else ''}"
                            f"{page_problem}")  # fmt: skip
    found = {"title": entry.title, "source": entry.source, "published_at": entry.published, "author": entry.author}
    record.update({k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in found.items() if v})
    if url:
        record["url"] = url
    record.setdefault("title", url or entry.key)
    return record


def _linked_page(url: str, options: LoadOptions) -> dict[str, Any]:
    fetched = fetch(url, options)
    kind = sniff(fetched.data, fetched.url.split("?")[0], fetched.content_type)
    if kind not in DOCUMENT_KINDS:
        raise DocumentError(f"not an HTML, PDF or DOCX document ({fetched.content_type})")
    return read_document(fetched.data, kind or "", fetched.url.rsplit("/", 1)[-1], options, charset=fetched.charset)


def _fragment(html: str, whole: bool) -> dict[str, Any] | None:
    """The text of an entry's HTML, its headings as sections as in a page; None when it holds no article (`whole`)
    or no text at all."""
    try:
        record = read_html(f"<html><body><article>{html}</article></body></html>".encode("utf-8", "replace"), "")
    except DocumentError:  # shorter than an article
        text = " ".join(parse_html(html).text().split())
        return {"body": text, "segments": []} if text and not whole else None
    record.pop("title", None)
    return record
