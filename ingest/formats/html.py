"""HTML: the page's main article text without navigation and boilerplate, its heading paths, and its own metadata.

A small readability approach on the standard library's parser (ingest/formats/html_tree.py): navigation, headers,
footers, asides, forms and elements named like menus, share bars or comments are dropped; the article is the
largest <article>, else <main>, else the element whose paragraphs hold the most text.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from graphwire.ingest.formats.base import DocumentError, TextBuilder
from graphwire.ingest.formats.html_meta import page_metadata
from graphwire.ingest.formats.html_tree import Node, parse_html
from graphwire.ingest.locators import PATH_SEPARATOR
from graphwire.schema.lexicon import phrase_pattern

MIN_ARTICLE_CHARS = 50  # less text than this after boilerplate is removed: the page has no article
_SKIP_TAGS = frozenset(
    ["script", "style", "noscript", "nav", "header", "footer", "aside", "form", "button", "svg", "iframe", "template",
     "select", "menu", "dialog"]
)  # fmt: skip
_SKIP_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "menu", "dialog"})
_SKIP_NAMES = re.compile(rf"\b{phrase_pattern('html_boilerplate_names')}\b", re.IGNORECASE)
_BLOCKS = frozenset(
    ["p", "div", "section", "article", "main", "li", "ul", "ol", "blockquote", "pre", "tr", "table", "dl", "dt", "dd",
     "figcaption", "address", "details", "summary"]
)  # fmt: skip
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<article")


def looks_like_html(data: bytes) -> bool:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(HTML_MARKERS) or (head.startswith(b"<!--") and b"<html" in data[:4096].lower())


def read_html(data: bytes, stem: str, charset: str | None = None) -> dict[str, Any]:
    """One record; DocumentError when the page has no article text or cannot be decoded."""
    root = parse_html(decode_html(data, charset))
    meta = page_metadata(root)
    title = meta.get("title") or stem
    body = TextBuilder()
    _Walker(body, title).walk(_article_root(root))
    if len(body.text) < MIN_ARTICLE_CHARS:
        raise DocumentError("no article text found: the page holds only navigation or boilerplate")
    return body.record(title=title, author=meta.get("author"), source=meta.get("source"),
                       published_at=meta.get("published_at"))  # fmt: skip


def decode_html(data: bytes, charset: str | None) -> str:
    """Text in the charset the server or the page declares (a BOM wins), else UTF-8."""
    declared = _CHARSET.search(data[:4096])
    for name in ("utf-8-sig" if data.startswith(codecs.BOM_UTF8) else None, charset,
                 declared.group(1).decode("ascii") if declared else None, "utf-8"):  # fmt: skip
        if not name:
            continue
        try:
            return data.decode(name)
        except LookupError:
            continue
        except UnicodeDecodeError as exc:
            raise DocumentError(
                f"not valid {name} at byte {exc.start} (mixed encodings, or a wrong charset declaration)"
            ) from exc
    raise AssertionError("utf-8 is always known")  # pragma: no cover


def _skipped(node: Node) -> bool:
    if node.tag in _SKIP_TAGS or node.attrs.get("role", "").lower() in _SKIP_ROLES:
        return True
    if "hidden" in node.attrs or node.attrs.get("aria-hidden") == "true":
        return True
    return bool(_SKIP_NAMES.search(f"{node.attrs.get('class', '')} {node.attrs.get('id', '')}"))


def _article_root(root: Node) -> Node:
    nodes = [n for n in root.iter() if not _skipped(n)]
    articles = [n for n in nodes if n.tag == "article"]
    if articles:
        return max(articles, key=_paragraph_chars)
    main = next((n for n in nodes if n.tag == "main" or n.attrs.get("role") == "main"), None)
    if main is not None:
        return main
    return max(nodes, key=_direct_paragraph_chars)


def _paragraph_chars(node: Node) -> int:
    return sum(len(n.text().strip()) for n in node.iter() if n.tag == "p")


def _direct_paragraph_chars(node: Node) -> int:
    return sum(len(c.text().strip()) for c in node.children if isinstance(c, Node) and c.tag == "p")


class _Walker:
    """Blocks of text into `body`, a new segment at each heading (its path: the headings above it, then itself)."""

    def __init__(self, body: TextBuilder, title: str) -> None:
        self.body = body
        self.title = " ".join(title.split()).lower()
        self.inline: list[str] = []
        self.path: list[tuple[int, str]] = []

    def walk(self, node: Node) -> None:
        self._children(node)
        self._flush()

    def _children(self, node: Node) -> None:
        for child in node.children:
            if isinstance(child, str):
                self.inline.append(child)
            elif _skipped(child):
                continue
            elif child.tag in _HEADINGS:
                self._heading(_HEADINGS[child.tag], " ".join(child.text().split()))
            elif child.tag in ("td", "th"):
                self.inline.append(" | " if self.inline and "".join(self.inline).strip() else "")
                self._children(child)
            elif child.tag == "br":
                self.inline.append(" ")
            elif child.tag in _BLOCKS:
                self._flush()
                self._children(child)
                self._flush()
            else:
                self._children(child)

    def _heading(self, level: int, text: str) -> None:
        self._flush()
        if not text or text.lower() == self.title:
            return
        self.path = [(lvl, name) for lvl, name in self.path if lvl < level] + [(level, text)]
        self.body.heading(PATH_SEPARATOR.join(name for _, name in self.path), text)

    def _flush(self) -> None:
        text = " ".join("".join(self.inline).split())
        self.inline = []
        self.body.add(text)
