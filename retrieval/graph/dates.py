"""Date windows and the before/after cue in a question, for stage 1's date constraints.

Recognises ISO dates, "October 5, 2023", "5 October 2023", "October 2023" and "in 2023"; a month without a year is
left out (no window can be built from it without guessing the year).
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from typing import Literal

from retrieval.graph.models import DateWindow

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ISO = re.compile(r"\b(?P<year>(?:19|20)\d{2})-(?P<m>\d{2})-(?P<d>\d{2})\b")
_MONTH_DAY_YEAR = re.compile(_MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>(?:19|20)\d{2})\b", re.I)
_DAY_MONTH_YEAR = re.compile(
    r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<year>(?:19|20)\d{2})\b", re.I
)
_MONTH_YEAR = re.compile(r"\b" + _MONTH + r",?\s+(?:of\s+)?(?P<year>(?:19|20)\d{2})\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|of|throughout)\s+(?P<year>(?:19|20)\d{2})\b", re.I)
_BEFORE = re.compile(r"\b(before|earlier than|prior to|preceding)\b", re.I)
_AFTER = re.compile(r"\b(after|later than|following|subsequent to|since)\b", re.I)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def date_windows(question: str) -> list[DateWindow]:
    windows: list[DateWindow] = []
    taken: list[tuple[int, int]] = []

    def add(match: re.Match[str], start: date | None, end: date | None) -> None:
        if start is None or end is None or any(s < match.end() and match.start() < e for s, e in taken):
            return
        taken.append((match.start(), match.end()))
        windows.append(DateWindow(text=match.group(), start=start, end=end))

    for m in _ISO.finditer(question):
        day = _safe_date(int(m["year"]), int(m["m"]), int(m["d"]))
        add(m, day, day)
    for pattern in (_MONTH_DAY_YEAR, _DAY_MONTH_YEAR):
        for m in pattern.finditer(question):
            day = _safe_date(int(m["year"]), _MONTHS[m["month"].lower()], int(m["day"]))
            add(m, day, day)
    for m in _MONTH_YEAR.finditer(question):
        year, month = int(m["year"]), _MONTHS[m["month"].lower()]
        add(m, date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))
    for m in _YEAR.finditer(question):
        year = int(m["year"])
        add(m, date(year, 1, 1), date(year, 12, 31))
    return windows


def temporal_order(question: str) -> Literal["before", "after"] | None:
    """ "before" or "after" when the question asks about order in time (the first cue wins)."""
    before, after = _BEFORE.search(question), _AFTER.search(question)
    if before and (not after or before.start() < after.start()):
        return "before"
    if after:
        return "after"
    return None
