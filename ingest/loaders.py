"""Read articles from MultiHop-RAG `corpus.json` lists, JSON Lines, .txt/.md files with front matter, PDF, DOCX and
HTML documents, RSS/Atom feeds (one article per entry), a folder mixing any of them, or a URL: the one loading
interface every surface calls.

Each file goes to its reader by its content (magic bytes) first and its name after (ingest/formats/dispatch.py); a
document that cannot be read (encrypted, scanned, corrupt, too large, no article) is a LoadError with a one-line
reason. Documents with pages or headings carry `segments`, from which chunks get their locators.

A bad record is reported (where, which title, why in words a person reads) and skipped; the rest of the input still
loads. A record whose id (its url, else its content) an earlier record already has is reported and skipped: the first
one wins. Text is cleaned on the way in (`core.documents.clean_text`: no NUL bytes, no lone surrogates).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml
from dateutil import parser as date_parser
from pydantic import BaseModel, ValidationError

from graphwire.core.documents import Article, clean_text
from graphwire.ingest.formats.base import DocumentError, LoadOptions
from graphwire.ingest.formats.dispatch import DOCUMENT_KINDS, read_document, sniff, sniff_file
from graphwire.ingest.formats.feed import parse_feed
from graphwire.ingest.formats.feed_entries import entry_record
from graphwire.ingest.formats.fetch import fetch, is_url
from graphwire.ingest.locators import markdown_segments

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
MARKDOWN_SUFFIXES = (".md", ".markdown")  # their `#` headings become the chunks' locators
_FIELDS = ("title", "body", "source", "published_at", "url", "author", "category")


class LoadError(BaseModel):
    """One record that could not become an Article."""

    location: str  # "file.json#12" (record index) or a file path
    title: str | None = None
    reason: str


class LoadResult(BaseModel):
    articles: list[Article]
    errors: list[LoadError]


def load_articles(path: Path | str, options: LoadOptions | None = None) -> LoadResult:
    """Load every article of `path` (a file, a folder, or an http(s) URL to fetch), collecting errors instead of
    raising; `options` holds the size limits and the fetch settings (LoadOptions.from_settings)."""
    errors: list[LoadError] = []
    return _load(_records(path, errors, options or LoadOptions()), errors)


def load_records(records: Sequence[Any]) -> LoadResult:
    """Articles from records already in memory (the Python API), checked as the file loaders check them."""
    return load_located((f"record {index}", record) for index, record in enumerate(records))


def load_located(located: Iterable[tuple[str, Any]]) -> LoadResult:
    """Articles from (location, record) pairs already in memory (a feed's entries), errors named by location."""
    return _load(located, [])


def _load(located: Iterable[tuple[str, Any]], errors: list[LoadError]) -> LoadResult:
    articles: list[Article] = []
    first_at: dict[str, str] = {}  # document id -> location of the record that has it
    for location, record in located:
        article = _to_article(location, record, errors)
        if article is None:
            continue
        if article.doc_id in first_at:
            what = "url" if article.url else "title, source, date and body"
            reason = f"duplicate: the same {what} as {first_at[article.doc_id]}, which is kept"
            errors.append(LoadError(location=location, title=article.title, reason=reason))
            continue
        first_at[article.doc_id] = location
        articles.append(article)
    return LoadResult(articles=articles, errors=errors)


def printable(text: str) -> str:
    """Text safe to print on any terminal: lone surrogates and control characters shown as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8").translate(_VISIBLE_CONTROLS)


_VISIBLE_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F] if chr(c) not in "\t"}


def _records(source: Path | str, errors: list[LoadError], options: LoadOptions) -> Iterator[tuple[str, Any]]:
    if isinstance(source, str) and is_url(source):
        yield from _url_records(source, errors, options)
        return
    path = Path(source)
    if path.is_dir():
        yield from _folder_records(path, errors, options)
        return
    kind = sniff_file(path) if path.is_file() else None
    if kind is None:
        raise ValueError(
            f"cannot load {path}: expected a .json, .jsonl, .txt/.md, PDF, DOCX, HTML or RSS/Atom file or a folder"
        )
    if kind == "json":
        yield from _json_records(path, errors)
    else:
        yield from _file_records(path, kind, errors, options)


def _file_records(path: Path, kind: str, errors: list[LoadError], options: LoadOptions) -> Iterator[tuple[str, Any]]:
    if kind == "jsonl":
        yield from _jsonl_records(path, errors)
    elif kind == "text":
        yield from _text_file_record(path, errors)
    elif kind in DOCUMENT_KINDS or kind == "feed":
        try:
            size = path.stat().st_size
            if size > options.document_max_bytes:  # refused before it is read
                raise DocumentError(
                    f"{size} bytes, over the limit of {options.document_max_bytes} (DOCUMENT_MAX_BYTES)"
                )
            if kind == "feed":
                yield from _feed_records(path.read_bytes(), str(path), None, errors, options)
            else:
                yield str(path), read_document(path.read_bytes(), kind, path.name, options)
        except (DocumentError, OSError) as exc:
            errors.append(LoadError(location=str(path), reason=str(exc)))


def _url_records(url: str, errors: list[LoadError], options: LoadOptions) -> Iterator[tuple[str, Any]]:
    try:
        fetched = fetch(url, options)
        kind = sniff(fetched.data, fetched.url.split("?")[0], fetched.content_type)
        if kind == "feed":
            yield from _feed_records(fetched.data, url, fetched.url, errors, options)
            return
        if kind is None:
            raise DocumentError(f"an {fetched.content_type} answer that is neither an RSS or Atom feed nor a page")
        if kind in DOCUMENT_KINDS:
            yield url, read_document(fetched.data, kind or "", fetched.url.rsplit("/", 1)[-1], options,
                                     charset=fetched.charset, url=url)  # fmt: skip
            return
        text = _decoded(fetched.data, fetched.charset or "utf-8")
    except DocumentError as exc:
        errors.append(LoadError(location=url, reason=str(exc)))
        return
    meta, body = split_front_matter(clean_text(text))
    yield url, {"title": _heading_or_stem(body, Path(url.rstrip("/"))), **meta, "body": body, "url": url}


def _feed_records(
    data: bytes, where: str, base_url: str | None, errors: list[LoadError], options: LoadOptions
) -> Iterator[tuple[str, Any]]:
    """One record per entry (ingest/formats/feed_entries.py); an entry without text is an error of its own."""
    feed = parse_feed(data, base_url)
    if not feed.entries:
        errors.append(LoadError(location=where, title=feed.title, reason="the feed has no entries"))
    for number, entry in enumerate(feed.entries, start=1):
        location = f"{where} entry {number}"
        try:
            yield location, entry_record(entry, options)
        except DocumentError as exc:
            errors.append(LoadError(location=location, title=entry.title, reason=str(exc)))


def _decoded(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise DocumentError(_encoding_reason(exc)) from exc


def _encoding_reason(exc: Exception) -> str:
    where = f" at byte {exc.start}" if isinstance(exc, UnicodeDecodeError) else ""
    return f"not valid UTF-8{where}: mixed or unknown encodings; save the file as UTF-8"


def _json_records(path: Path, errors: list[LoadError]) -> Iterator[tuple[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    if isinstance(data, dict):  # {"articles": [...]} or {"data": [...]} wrappers
        data = next(
            (v for k, v in data.items() if k in ("articles", "data", "documents") and isinstance(v, list)), None
        )
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of article objects")
    for index, record in enumerate(data):
        yield f"{path.name}#{index}", record


def _jsonl_records(path: Path, errors: list[LoadError]) -> Iterator[tuple[str, Any]]:
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield f"{path.name}:{line_no}", json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(LoadError(location=f"{path.name}:{line_no}", reason=f"invalid JSON: {exc.msg}"))


def _folder_records(folder: Path, errors: list[LoadError], options: LoadOptions) -> Iterator[tuple[str, Any]]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            kind = sniff_file(path)
        except OSError as exc:
            errors.append(LoadError(location=str(path), reason=f"cannot read: {exc}"))
            continue
        if kind == "json":
            try:
                yield from _json_records(path, errors)
            except ValueError as exc:
                errors.append(LoadError(location=str(path), reason=str(exc)))
        elif kind is not None:
            yield from _file_records(path, kind, errors, options)


def _text_file_record(path: Path, errors: list[LoadError]) -> Iterator[tuple[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        errors.append(LoadError(location=str(path), reason=f"cannot read: {exc}"))
        return
    except UnicodeDecodeError as exc:
        errors.append(LoadError(location=str(path), reason=_encoding_reason(exc)))
        return
    try:
        meta, body = split_front_matter(text)
    except ValueError as exc:
        errors.append(LoadError(location=str(path), reason=str(exc)))
        return
    record: dict[str, Any] = {**meta, "body": body}
    if path.suffix.lower() in MARKDOWN_SUFFIXES:
        record["body"] = body = clean_text(body).strip()  # the offsets of the headings are into the stored body
        record["segments"] = markdown_segments(body)
    if not record.get("title"):
        record["title"] = _heading_or_stem(body, path)
    yield str(path), record


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """`---\\nkey: value\\n---\\nbody` -> (metadata, body); text without front matter has empty metadata."""
    if not text.startswith("---"):
        return {}, text.strip()
    parts = text.split("\n---", 1)
    if len(parts) != 2:
        raise ValueError("front matter opened with --- but never closed")
    try:
        meta = yaml.safe_load(parts[0][3:]) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid front matter: {exc}") from exc
    if not isinstance(meta, dict):
        raise ValueError("front matter is not a mapping")
    return meta, parts[1].lstrip("-").strip()


def _heading_or_stem(body: str, path: Path) -> str:
    first = body.lstrip().splitlines()[0] if body.strip() else ""
    return first.lstrip("# ").strip() if first.startswith("#") else path.stem.replace("_", " ").replace("-", " ")


def _to_article(location: str, record: Any, errors: list[LoadError]) -> Article | None:
    if not isinstance(record, dict):
        errors.append(LoadError(location=location, reason=f"expected an object, got {type(record).__name__}"))
        return None
    title = clean_text(record["title"]).strip() or None if isinstance(record.get("title"), str) else None
    fields = {k: record.get(k) for k in _FIELDS}
    for key in ("title", "body", "source", "url", "author", "category"):
        value = fields[key]
        fields[key] = clean_text(value).strip() or None if isinstance(value, str) else value
    fields["segments"] = record.get("segments") or []
    fields["access"] = record.get("access")  # who may read it (core/access.py); checked by Article
    missing = _missing_reason(fields)
    if missing:
        errors.append(LoadError(location=location, title=title, reason=missing))
        return None
    try:
        fields["published_at"] = parse_published(fields["published_at"])
        return Article.model_validate(fields)
    except (ValueError, ValidationError) as exc:
        errors.append(LoadError(location=location, title=title, reason=_reason(exc)))
        return None


def parse_published(value: Any) -> date | None:
    """ISO dates and datetimes (with or without zone), or anything dateutil reads; None stays None."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise ValueError(f"published_at: expected a date string, got {type(value).__name__}")
    try:
        return date_parser.isoparse(value).date()
    except ValueError:
        pass
    try:
        return date_parser.parse(value).date()
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"published_at: cannot parse {value!r}") from exc


def _missing_reason(fields: dict[str, Any]) -> str | None:
    """The reason, in words, when a required field is absent, empty or not text."""
    for key, what in (("title", "title"), ("body", "body text")):
        value = fields[key]
        if value is None:
            return f"no {what} (the {key!r} field is missing or empty)"
        if not isinstance(value, str):
            return f"the {key!r} field must be text, not {type(value).__name__}"
    return None


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in exc.errors())
    return str(exc)
