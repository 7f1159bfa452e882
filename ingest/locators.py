"""Name where a chunk came from in its document: the page range of a PDF ("p. 4", "pp. 4-5"), else the heading
path of the section holding most of the chunk ("Results > Revenue"), from the article's `segments`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphwire.core.documents import Segment

_ATX_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
PATH_SEPARATOR = " > "


def locate(segments: Sequence[Segment], start: int, end: int) -> str | None:
    """The locator of body[start:end]; None when the article has no segments or the text lies before any heading."""
    covered = [(segment, _overlap(segments, i, start, end)) for i, segment in enumerate(segments)]
    covered = [(segment, size) for segment, size in covered if size > 0]
    if not covered:
        return None
    pages = [segment.page for segment, _ in covered if segment.page is not None]
    if pages:
        first, last = min(pages), max(pages)
        return f"p. {first}" if first == last else f"pp. {first}-{last}"
    label = max(covered, key=lambda pair: pair[1])[0].label  # the first of equals: max keeps the earliest
    return label or None


def _overlap(segments: Sequence[Segment], index: int, start: int, end: int) -> int:
    seg_start = segments[index].start
    seg_end = segments[index + 1].start if index + 1 < len(segments) else end
    return max(0, min(end, seg_end) - max(start, seg_start))


def heading_segments(headings: Sequence[tuple[int, int, str]]) -> list[Segment]:
    """Segments from (offset, level, heading text) in document order: each heading's path is the headings above it
    of a lower level, then itself."""
    segments: list[Segment] = []
    path: list[tuple[int, str]] = []
    for offset, level, text in headings:
        path = [(lvl, name) for lvl, name in path if lvl < level] + [(level, text.strip())]
        segments.append(Segment(start=offset, label=PATH_SEPARATOR.join(name for _, name in path)))
    return segments


def markdown_segments(body: str) -> list[Segment]:
    """The ATX headings (`#` to `######`) of a Markdown body as segments; none when it has no headings."""
    return heading_segments([(m.start(), len(m.group(1)), m.group(2)) for m in _ATX_HEADING.finditer(body)])
