"""Dates and time expressions in a question ("published on October 9, 2023", "before November 5", "in December
2023") with the relation the question puts on them (on / before / after)."""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date
from enum import StrEnum

from pydantic import BaseModel

from graphwire.schema.lexicon import phrase_pattern

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


class Granularity(StrEnum):
    DAY = "day"
    MONTH = "month"
    YEAR = "year"


class DateRelation(StrEnum):
    ON = "on"
    BEFORE = "before"
    AFTER = "after"


class DateMention(BaseModel):
    text: str
    start: int
    end: int
    year: int | None = None  # None: the question gave no year ("on October 9")
    month: int | None = None
    day: int | None = None
    granularity: Granularity
    relation: DateRelation = DateRelation.ON
    publication: int | None = None  # index into QuestionSignals.publications of the outlet this date belongs to

    def as_date(self) -> date | None:
        if self.year and self.month and self.day:
            return date(self.year, self.month, self.day)
        return None

    def matches(self, published: date) -> bool:
        """True when `published` falls inside this date at its granularity (year-less dates ignore the year)."""
        if self.year is not None and published.year != self.year:
            return False
        if self.month is not None and published.month != self.month:
            return False
        return self.day is None or published.day == self.day

    def admits(self, published: date) -> bool:
        """True when `published` satisfies the question's relation to this date (on / before / after)."""
        if self.relation is DateRelation.ON:
            return self.matches(published)
        bounds = self._bounds(published.year)
        if bounds is None:
            return True
        first, last = bounds
        return published < first if self.relation is DateRelation.BEFORE else published > last

    def _bounds(self, fallback_year: int) -> tuple[date, date] | None:
        year = self.year or fallback_year
        if self.month is None:
            return (date(year, 1, 1), date(year, 12, 31)) if self.year else None
        if self.day is None:
            return date(year, self.month, 1), date(year, self.month, monthrange(year, self.month)[1])
        return date(year, self.month, self.day), date(year, self.month, self.day)


_MONTH = r"(?P<{g}>(?i:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r"))\.?"
_DAY = r"(?P<{g}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{g}>(?:19|20)\d\d)"
# Cue words are schema lexicon files (schema/lexicon/month_cues.txt, year_cues.txt, date_*_cues.txt).
_MONTH_CUE = f"(?i:{phrase_pattern('month_cues')})"
_YEAR_CUE = f"(?i:{phrase_pattern('year_cues')})"
_DATE_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern)
    for pattern in (
        rf"\b{_YEAR.format(g='y')}-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b",
        rf"\b{_MONTH.format(g='mon')}\s+{_DAY.format(g='d')}(?:,?\s+{_YEAR.format(g='y')})?\b",
        rf"\b{_DAY.format(g='d')}\s+(?:of\s+)?{_MONTH.format(g='mon')}(?:,?\s+{_YEAR.format(g='y')})?\b",
        rf"\b{_MONTH.format(g='mon')},?\s+{_YEAR.format(g='y')}\b",
        rf"\b{_MONTH_CUE}\s+{_MONTH.format(g='mon')}\b",
        rf"\b{_YEAR_CUE}\s+{_YEAR.format(g='y')}\b",
    )
)

_BEFORE = re.compile(rf"\b{phrase_pattern('date_before_cues')}\s*(?:the\s+)?$", re.IGNORECASE)
_AFTER = re.compile(rf"\b{phrase_pattern('date_after_cues')}\s*(?:the\s+)?$", re.IGNORECASE)


def find_dates(text: str) -> list[DateMention]:
    """Calendar dates, months and years in `text`, each with the relation the words before it put on it."""
    taken: list[tuple[int, int]] = []
    found: list[DateMention] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            span = _date_span(match)
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            mention = _date_mention(text, match, span)
            if mention is not None:
                taken.append(span)
                found.append(mention)
    return sorted(found, key=lambda m: m.start)


def _date_span(match: re.Match[str]) -> tuple[int, int]:
    """The span of the date itself, without a leading cue word such as "in" or "before"."""
    groups = [name for name in ("mon", "d", "y", "m") if match.groupdict().get(name)]
    return min(match.start(g) for g in groups), match.end()


def _date_mention(text: str, match: re.Match[str], span: tuple[int, int]) -> DateMention | None:
    parts = match.groupdict()
    month = MONTHS[parts["mon"].lower()] if parts.get("mon") else (int(parts["m"]) if parts.get("m") else None)
    day = int(parts["d"]) if parts.get("d") else None
    year = int(parts["y"]) if parts.get("y") else None
    if parts.get("mon") and parts["mon"].lower() == "may" and day is None and not text[span[0]].isupper():
        return None  # the verb "may"
    if month is not None and day is not None and not 1 <= day <= monthrange(year or 2024, month)[1]:
        return None
    granularity = Granularity.DAY if day else Granularity.MONTH if month else Granularity.YEAR
    prefix = text[max(0, span[0] - 40) : span[0]]
    prefix = re.sub(r"(?:\b(?:published|released|reported|posted|dated|on|in|of|during)\s+)+$", "", prefix)
    relation = (
        DateRelation.BEFORE
        if _BEFORE.search(prefix)
        else DateRelation.AFTER
        if _AFTER.search(prefix)
        else DateRelation.ON
    )
    return DateMention(
        text=text[span[0] : span[1]],
        start=span[0],
        end=span[1],
        year=year,
        month=month,
        day=day,
        granularity=granularity,
        relation=relation,
    )
