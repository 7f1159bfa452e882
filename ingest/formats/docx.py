"""DOCX (python-docx, the optional extra `documents`): paragraphs under their heading paths, tables as text (cells
joined by " | ", a row a line), and the title, author and date of its core properties. The archive's entries are
measured before anything is unpacked: a zip bomb is refused, not read."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from graphwire.ingest.formats.base import DocumentError, LoadOptions, TextBuilder
from graphwire.ingest.locators import PATH_SEPARATOR

MAGIC = b"PK\x03\x04"
MAX_RATIO = 200  # an entry unpacking to over this many times its packed size is a bomb, whatever its total
_HEADING = re.compile(r"^Heading (\d)$")


def is_docx(data: bytes) -> bool:
    """A zip archive holding word/document.xml."""
    if not data.startswith(MAGIC):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return True  # a damaged DOCX: the reader says so


def read_docx(data: bytes, stem: str, options: LoadOptions) -> dict[str, Any]:
    """One record; DocumentError for a corrupt or truncated file or one that unpacks too large."""
    check_unpacked(data, options.docx_max_unpacked_bytes)
    try:
        from docx import Document
        from docx.table import Table
    except ImportError as exc:
        raise DocumentError(
            "reading DOCX needs python-docx: install the extra: pip install 'graphwire[documents]'"
        ) from exc
    try:
        document = Document(io.BytesIO(data))
        body = TextBuilder()
        path: list[tuple[int, str]] = []
        first_heading = None
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                for row in block.rows:
                    body.add(" | ".join(dict.fromkeys(cell.text.strip() for cell in row.cells)))
                continue
            text = block.text.strip()
            level = _level(block.style.name if block.style is not None else "")
            if level is None or not text:
                body.add(text)
                continue
            first_heading = first_heading or text
            path = [(lvl, name) for lvl, name in path if lvl < level] + [(level, text)]
            body.heading(PATH_SEPARATOR.join(name for _, name in path), text)
        props = document.core_properties
    except DocumentError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError, zipfile.LargeZipFile) as exc:
        raise DocumentError(f"corrupt or truncated DOCX: {' '.join(str(exc).split())[:200]}") from exc
    except Exception as exc:  # lxml's XMLSyntaxError and python-docx's own: the file is damaged, not the loader
        raise DocumentError(f"corrupt or truncated DOCX: {type(exc).__name__}") from exc
    if not body.text.strip():
        raise DocumentError("no text: the DOCX has no paragraphs or tables with text")
    created = props.created or props.modified
    return body.record(title=(props.title or "").strip() or first_heading or stem,
                       author=(props.author or "").strip() or None,
                       published_at=created.date() if created else None)  # fmt: skip


def check_unpacked(data: bytes, limit: int) -> None:
    """Refuse an archive whose entries, by their headers, unpack past `limit` bytes or past MAX_RATIO times their
    packed size; the headers are read, the entries are not."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise DocumentError(f"corrupt or truncated DOCX: {' '.join(str(exc).split())[:200]}") from exc
    total = sum(entry.file_size for entry in entries)
    if total > limit:
        raise DocumentError(f"DOCX unpacks to {total} bytes, over the limit of {limit} (DOCX_MAX_UNPACKED_BYTES)")
    for entry in entries:
        if entry.file_size > MAX_RATIO * max(entry.compress_size, 1) and entry.file_size > 1_000_000:
            raise DocumentError(
                f"DOCX entry {entry.filename} unpacks {entry.file_size // max(entry.compress_size, 1)} times its "
                "size: refused as a zip bomb"
            )


def _level(style: str) -> int | None:
    if style == "Title":
        return 1
    match = _HEADING.match(style)
    return int(match.group(1)) if match else None
