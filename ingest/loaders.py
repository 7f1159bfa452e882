"""Read articles from MultiHop-RAG `corpus.json` lists, JSON Lines, or a folder of .txt/.md files with front matter.

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

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
_FIELDS = ("title", "body", "source", "published_at", "url", "author", "category")


class LoadError(BaseModel):
    """One record that could not become an Article."""

    location: str  # "file.json#12" (record index) or a file path
    title: str | None = None
    reason: str


class LoadResult(BaseModel):
    articles: list[Article]
    errors: list[LoadError]


def load_articles(path: Path) -> LoadResult:
    """Load every article under `path` (a .json/.jsonl file or a folder), collecting errors instead of raising."""
    errors: list[LoadError] = []
    return _load(_records(path, errors), errors)


def load_records(records: Sequence[Any]) -> LoadResult:
    """Articles from records already in memory (the Python API), checked as the file loaders check them."""
    return _load(((f"record {index}", record) for index, record in enumerate(records)), [])


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


def _records(path: Path, errors: list[LoadError]) -> Iterator[tuple[str, Any]]:
    if path.is_dir():
        yield from _folder_records(path, errors)
    elif path.suffix.lower() in (".jsonl", ".ndjson"):
        yield from _jsonl_records(path, errors)
    elif path.suffix.lower() == ".json":
        yield from _json_records(path, errors)
    elif path.suffix.lower() in TEXT_SUFFIXES:
        yield from _text_file_record(path, errors)
    else:
        raise ValueError(f"cannot load {path}: expected a .json, .jsonl, .txt/.md file or a folder")


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


def _folder_records(folder: Path, errors: list[LoadError]) -> Iterator[tuple[str, Any]]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        suffix = path.suffix.lower()
        if suffix in TEXT_SUFFIXES:
            yield from _text_file_record(path, errors)
        elif suffix in (".jsonl", ".ndjson"):
            yield from _jsonl_records(path, errors)
        elif suffix == ".json":
            try:
                yield from _json_records(path, errors)
            except ValueError as exc:
                errors.append(LoadError(location=str(path), reason=str(exc)))


def _text_file_record(path: Path, errors: list[LoadError]) -> Iterator[tuple[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(LoadError(location=str(path), reason=f"cannot read: {exc}"))
        return
    try:
        meta, body = split_front_matter(text)
    except ValueError as exc:
        errors.append(LoadError(location=str(path), reason=str(exc)))
        return
    record: dict[str, Any] = {**meta, "body": body}
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
