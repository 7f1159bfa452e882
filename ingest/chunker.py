"""Split an article into overlapping windows that end at sentence boundaries where possible.

A document with parts (the pages of a PDF, the sections under headings) is cut part by part, so that each chunk
lies in one part and cites it ("p. 4", "Results > Revenue"); a part shorter than the overlap (a heading with no text
of its own) joins the next one. Other documents are cut as one text.

Each chunk's text starts with `[Source: X | Title: Y | Published: YYYY-MM-DD]` on its own line, so every retriever
and the extractor see where the text came from. Ids are content hashes: the same article always gives the same ids.
"""

from __future__ import annotations

import hashlib
import re

from graphwire.core.documents import PREFIX_END, Article, Chunk
from graphwire.core.settings import default_of
from graphwire.ingest.locators import locate

_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s+")
_SPACES = re.compile(r"\s+")


def chunk_prefix(article: Article) -> str:
    source = _one_line(article.source or "unknown")
    published = article.published_at.isoformat() if article.published_at else "unknown"
    return f"[Source: {source} | Title: {_one_line(article.title)} | Published: {published}{PREFIX_END}"


def chunk_id(document_id: str, index: int, text: str) -> str:
    return hashlib.sha256(f"{document_id}|{index}|{text}".encode()).hexdigest()[:32]


def chunk_article(
    article: Article, size: int = default_of("chunk_size"), overlap: int = default_of("chunk_overlap")
) -> list[Chunk]:
    if overlap >= size:
        raise ValueError(f"chunk overlap ({overlap}) must be smaller than chunk size ({size})")
    prefix = chunk_prefix(article)
    doc_id = article.doc_id
    body = article.body.strip()
    lead = len(article.body) - len(article.body.lstrip())  # offsets are into the body as stored
    chunks = []
    for index, (start, end) in enumerate(_spans(article, body, size, overlap)):
        text = prefix + body[start:end]
        chunks.append(
            Chunk(
                id=chunk_id(doc_id, index, text),
                document_id=doc_id,
                index=index,
                text=text,
                title=article.title,
                source=article.source,
                published_at=article.published_at,
                locator=locate(article.segments, lead + start, lead + end),
                char_start=lead + start,
                char_end=lead + end,
            )
        )
    return chunks


def _spans(article: Article, body: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Windows over the body, or over each of its parts (offsets into the body either way)."""
    if not article.segments:
        return split_spans(body, size, overlap)
    lead = len(article.body) - len(article.body.lstrip())
    edges = sorted({0, len(body), *(min(max(s.start - lead, 0), len(body)) for s in article.segments)})
    parts: list[tuple[int, int]] = []
    lo = 0
    for hi in edges[1:]:
        if hi - lo < overlap and hi < len(body):
            continue  # too short to stand alone: it joins the next part
        parts.append((lo, hi))
        lo = hi
    return [(lo + start, lo + end) for lo, hi in parts for start, end in split_spans(body[lo:hi], size, overlap)]


def split_text(text: str, size: int, overlap: int) -> list[str]:
    """Windows of at most `size` characters; each ends at a sentence end (else a space) in its second half and
    the next starts at a sentence start (else a word) within the last `overlap` characters of the previous one."""
    return [text[start:end] for start, end in split_spans(text, size, overlap)]


def split_spans(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """The (start, end) offsets into `text` of `split_text`'s windows, whitespace at either end left out."""
    if len(text) <= size:
        return [_trimmed(text, 0, len(text))] if text.strip() else []
    spans = []
    start = 0
    while start < len(text):
        end = _window_end(text, start, size)
        if text[start:end].strip():
            spans.append(_trimmed(text, start, end))
        if end >= len(text):
            break
        start = max(_next_start(text, end, overlap), start + 1)
    return spans


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    piece = text[start:end]
    return start + len(piece) - len(piece.lstrip()), end - (len(piece) - len(piece.rstrip()))


def join_pieces(pieces: list[str]) -> str:
    """The text `split_text` cut into `pieces`, in one piece again: each piece starts inside the one before it, so the
    longest head of a piece that ends the piece before it is the overlap, kept once; pieces that do not overlap (a
    window that found no word to start on) are joined with a space."""
    text = ""
    for previous, piece in zip(["", *pieces], pieces, strict=False):
        if not text:
            text = piece
            continue
        shared = next((size for size in range(min(len(previous), len(piece)), 0, -1)
                       if previous.endswith(piece[:size])), 0)  # fmt: skip
        text = text + piece[shared:] if shared else f"{text} {piece}"
    return text


def _window_end(text: str, start: int, size: int) -> int:
    hard_end = start + size
    if hard_end >= len(text):
        return len(text)
    floor = start + size // 2
    ends = [m.end() for m in _SENTENCE_END.finditer(text, floor, hard_end)]
    if ends:
        return ends[-1]
    space = text.rfind(" ", floor, hard_end)
    return space + 1 if space > 0 else hard_end


def _next_start(text: str, end: int, overlap: int) -> int:
    floor = max(end - overlap, 0)
    starts = [m.end() for m in _SENTENCE_END.finditer(text, floor, end) if m.end() < end]
    if starts:
        return starts[0]
    space = text.find(" ", floor, end)
    return space + 1 if space >= 0 and space + 1 < end else end


def _one_line(value: str) -> str:
    return _SPACES.sub(" ", value).replace("]", ")").strip()
