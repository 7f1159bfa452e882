"""Date windows for the retrieve templates, from the dates the shared question parser found.

"on October 5, 2023" -> that day; "in September 2023" -> that month; "before November 2023" -> open start up to
October 31; a date without a year ("on October 5") becomes a month-day window. A date that follows an outlet's name
qualifies only that outlet's chunks.
"""

from __future__ import annotations

from calendar import monthrange
from datetime import date, timedelta

from graphwire.retrieval.graph.models import DateWindow
from graphwire.retrieval.question import DateMention, DateRelation, QuestionSignals


def _bounds(mention: DateMention) -> tuple[date, date] | None:
    year = mention.year
    if year is None:
        return None
    if mention.month is None:
        return date(year, 1, 1), date(year, 12, 31)
    if mention.day is None:
        return date(year, mention.month, 1), date(year, mention.month, monthrange(year, mention.month)[1])
    return date(year, mention.month, mention.day), date(year, mention.month, mention.day)


def _month_day(mention: DateMention) -> tuple[str, str] | None:
    if mention.month is None:
        return None
    if mention.day is None:
        return f"{mention.month:02d}-01", f"{mention.month:02d}-31"
    return f"{mention.month:02d}-{mention.day:02d}", f"{mention.month:02d}-{mention.day:02d}"


def window_for(mention: DateMention, sources: list[str]) -> DateWindow | None:
    bounds = _bounds(mention)
    if bounds is None:
        month_day = _month_day(mention)
        if month_day is None or mention.relation is not DateRelation.ON:
            return None  # "before October" with no year: no window without guessing the year
        return DateWindow(text=mention.text, md_start=month_day[0], md_end=month_day[1], sources=sources)
    first, last = bounds
    if mention.relation is DateRelation.BEFORE:
        return DateWindow(text=mention.text, end=first - timedelta(days=1), sources=sources)
    if mention.relation is DateRelation.AFTER:
        return DateWindow(text=mention.text, start=last + timedelta(days=1), sources=sources)
    return DateWindow(text=mention.text, start=first, end=last, sources=sources)


def date_windows(signals: QuestionSignals) -> list[DateWindow]:
    windows = []
    for mention in signals.dates:
        owner = signals.publications[mention.publication] if mention.publication is not None else None
        window = window_for(mention, list(owner.sources) if owner else [])
        if window is not None:
            windows.append(window)
    return windows
