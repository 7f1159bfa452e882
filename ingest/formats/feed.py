"""RSS and Atom feeds (RSS 0.9x, 1.0 and 2.0, Atom 0.3 and 1.0) read with feedparser: the feed's title and each
entry's link, title, outlet, date, author, full text (when the feed carries it) and summary, with a fingerprint that
changes when the entry does (a feed polled on a schedule ingests only new and changed entries).

The bytes are handed to feedparser as a stream, never as a string: given a string, feedparser would fetch a URL or
open a local file of that name itself. Its strict parser is expat, which refuses external entities and caps entity
expansion (billion laughs); its DOCTYPE handling keeps only the entities it knows.
"""

from __future__ import annotations

import hashlib
import io
import re
import time
from datetime import date
from typing import Any

import feedparser
from pydantic import BaseModel

from graphwire.ingest.formats.base import DocumentError

FEED_MEDIA_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml")
# the root element after an optional XML declaration, comments, processing instructions and a DOCTYPE
_FEED_ROOT = re.compile(
    rb"(?:\s+|<\?[^>]*\?>|<!--.*?-->|<!doctype[^>\[]*(?:\[[^\]]*\])?\s*>)*<(?:rss|feed|rdf:rdf)[\s>/]",
    re.IGNORECASE | re.DOTALL,
)
_UNKNOWN_PLACE = re.compile(r"^<unknown>:\d+:\d+: ")  # expat's place in feedparser's copy, not in the answer


def looks_like_feed(data: bytes) -> bool:
    """An RSS (`<rss>`, `<rdf:RDF>`) or Atom (`<feed>`) document, by its root element."""
    return _FEED_ROOT.match(data[:4096].lstrip(b"\xef\xbb\xbf")) is not None


class FeedEntry(BaseModel):
    """One entry as the feed states it; `content` and `summary` are HTML (feedparser's sanitised copy)."""

    key: str  # the entry's id (guid), else its link, else a hash of its title and text
    link: str | None = None
    title: str | None = None
    source: str | None = None  # the entry's own <source>, else the feed's title
    published: date | None = None  # published, else updated, else created
    author: str | None = None
    content: str | None = None  # the full text, when the feed carries it
    summary: str | None = None
    fingerprint: str  # a hash of what the entry says: a changed entry has a new one


class Feed(BaseModel):
    title: str | None = None
    entries: list[FeedEntry]
    undated: int = 0  # entries that state no date (stored undated)


def parse_feed(data: bytes, base_url: str | None = None) -> Feed:
    """The feed in `data` (relative links resolved against `base_url`); DocumentError when it is not RSS or Atom."""
    headers = {"content-location": base_url} if base_url else {}
    parsed = feedparser.parse(io.BytesIO(data), response_headers=headers, sanitize_html=True)
    if not parsed.get("version"):
        problem = _UNKNOWN_PLACE.sub("", " ".join(str(parsed.get("bozo_exception") or "").split()))
        why = f" (not XML: {problem[:200]})" if problem else ""
        raise DocumentError(f"not an RSS or Atom feed{why}")
    feed_title = _text(parsed.feed.get("title"))
    entries = [_entry(raw, feed_title) for raw in parsed.entries]
    return Feed(title=feed_title, entries=entries, undated=sum(1 for e in entries if e.published is None))


def _entry(raw: Any, feed_title: str | None) -> FeedEntry:
    contents = [c.get("value", "") for c in raw.get("content") or [] if isinstance(c, dict)]
    content = max(contents, key=len) if contents else None
    summary = raw.get("summary") or None
    if content is not None and summary == content:
        summary = None  # feedparser repeats a content:encoded body as the summary
    source = raw.get("source") or {}
    fields: dict[str, Any] = {
        "link": raw.get("link") or None,
        "title": _text(raw.get("title")),
        "source": _text(source.get("title") if isinstance(source, dict) else None) or feed_title,
        "published": _day(_raw(raw, "published_parsed") or _raw(raw, "updated_parsed") or _raw(raw, "created_parsed")),
        "author": _text(raw.get("author")),
        "content": content or None,
        "summary": summary,
    }
    stated = "\x1f".join(str(v or "") for v in (*fields.values(), _raw(raw, "updated")))
    fingerprint = hashlib.sha256(stated.encode("utf-8", "surrogatepass")).hexdigest()
    key = raw.get("id") or fields["link"] or f"sha256:{hashlib.sha256(stated.encode('utf-8', 'replace')).hexdigest()}"
    return FeedEntry(key=str(key), fingerprint=fingerprint, **fields)


def _raw(entry: Any, key: str) -> Any:
    """What the entry states under `key`, without feedparser's fallback from `updated` to `published` (which warns)."""
    return dict.get(entry, key)


def _text(value: Any) -> str | None:
    return " ".join(value.split()) or None if isinstance(value, str) else None


def _day(value: time.struct_time | None) -> date | None:
    if value is None:
        return None
    try:
        return date(value.tm_year, value.tm_mon, value.tm_mday)
    except ValueError:
        return None
