"""What a web page says about itself: title, author, publisher and publication date from its <title>, its og:,
article: and named <meta> tags and its JSON-LD (schema.org NewsArticle and kin), JSON-LD first."""

from __future__ import annotations

import json
from typing import Any

from graphwire.ingest.formats.html_tree import Node

_TITLE = ("og:title", "twitter:title", "dc.title")
_AUTHOR = ("author", "article:author", "dc.creator", "byl", "parsely-author")
_SOURCE = ("og:site_name", "application-name", "publisher", "dc.publisher")
_DATE = ("article:published_time", "datepublished", "pubdate", "publishdate", "date", "dc.date", "og:published_time",
         "parsely-pub-date", "sailthru.date")  # fmt: skip


def page_metadata(root: Node) -> dict[str, str]:
    """title, author, source and published_at where the page states them (values as written)."""
    metas: dict[str, str] = {}
    ld: dict[str, str] = {}
    title_tag = ""
    for node in root.iter():
        if node.tag == "meta":
            name = (node.attrs.get("property") or node.attrs.get("name") or node.attrs.get("itemprop") or "").lower()
            if name and node.attrs.get("content", "").strip():
                metas.setdefault(name, node.attrs["content"].strip())
        elif node.tag == "title" and not title_tag:
            title_tag = " ".join(node.text().split())
        elif node.tag == "script" and node.attrs.get("type", "").lower() == "application/ld+json":
            _json_ld(node.text(), ld)
    found = {
        "title": ld.get("title") or _first(metas, _TITLE) or title_tag,
        "author": ld.get("author") or _first(metas, _AUTHOR),
        "source": ld.get("source") or _first(metas, _SOURCE),
        "published_at": ld.get("published_at") or _first(metas, _DATE),
    }
    return {k: v for k, v in found.items() if v}


def _first(metas: dict[str, str], names: tuple[str, ...]) -> str:
    return next((metas[name] for name in names if metas.get(name)), "")


def _json_ld(text: str, found: dict[str, str]) -> None:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return
    for item in _items(data):
        if not any(k in item for k in ("headline", "datePublished")):
            continue
        for key, field in (("headline", "title"), ("datePublished", "published_at")):
            if isinstance(item.get(key), str) and item[key].strip():
                found.setdefault(field, item[key].strip())
        for key, field in (("author", "author"), ("publisher", "source")):
            name = _name(item.get(key))
            if name:
                found.setdefault(field, name)


def _items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, list):
        return [item for entry in data for item in _items(entry)]
    if isinstance(data, dict):
        return [data, *_items(data.get("@graph", []))]
    return []


def _name(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(n for n in (_name(v) for v in value) if n)
    if isinstance(value, dict):
        value = value.get("name")
    return value.strip() if isinstance(value, str) else ""
