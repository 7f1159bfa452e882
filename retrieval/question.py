"""Question analysis shared by the flat, hybrid and graph retrievers: pure functions, no I/O.

- Publications named in a question, from a gazetteer of the corpus's `source` values plus short outlet forms
  ("CNBC" for "Cnbc | World Business News Leader", "The Independent" for its three sections). Short or common-word
  names match case-sensitively on word boundaries so "on the verge of" or "the age of" never name an outlet. The
  outlets a question may name beyond the corpus, the short forms and the common-phrase guards are schema data (the
  news schema's gazetteer file: `question_outlets`, `question_aliases`, `not_outlet_after`).
- Dates and time expressions ("published on October 9, 2023", "before November 5", "in December 2023") with the
  relation the question puts on them (on / before / after), and the publication each one belongs to.
- Temporal and comparison cues ("subsequent", "same day", "while", "in contrast", yes/no form).
"""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import cached_property

from pydantic import BaseModel, Field

from core.schema import configured_schema
from schema.model import GraphSchema

_SECTION_SEPARATOR = re.compile(r"\s+\|\s+|\s+-\s+|:\s+")
_WORD = r"[A-Za-z0-9]"


def outlet_head(source: str) -> str:
    """The outlet part of a source name: "FOX News - Health" -> "FOX News", "Cnbc | World ..." -> "Cnbc"."""
    return _SECTION_SEPARATOR.split(source.strip(), maxsplit=1)[0].strip()


class PublicationMention(BaseModel):
    mention: str  # the text as it appears in the question
    start: int
    end: int
    name: str  # display name: the outlet's head ("FOX News"), or the full source when the question spells it out
    sources: list[str] = Field(default_factory=list)  # the corpus `source` values it stands for (empty: not in corpus)
    clause: str = ""  # the part of the question about this publication

    @property
    def in_corpus(self) -> bool:
        return bool(self.sources)


@dataclass(frozen=True)
class _Surface:
    text: str
    case_sensitive: bool
    name: str
    sources: tuple[str, ...]


class OutletGazetteer:
    """Finds publications in questions. Build it from the corpus's distinct `source` values.

    `known_outlets`: outlets a question may name that the corpus need not have (a question naming one the corpus
    lacks is a strong sign it cannot be answered from it); default: the schema's `question_outlets`. `schema`: where
    those, the short forms and the common-phrase guards come from (default: the configured schema)."""

    def __init__(
        self,
        sources: Iterable[str],
        known_outlets: Iterable[str] | None = None,
        schema: GraphSchema | None = None,
    ) -> None:
        data = (schema or configured_schema()).gazetteer_data
        known_outlets = data.question_outlets if known_outlets is None else known_outlets
        self._aliases = data.question_aliases
        self._not_after = data.not_outlet_after
        self.sources = sorted({s.strip() for s in sources if s and s.strip()})
        surfaces: dict[str, _Surface] = {}
        for surface in self._corpus_surfaces():
            surfaces.setdefault(surface.text, surface)
        for outlet in known_outlets:
            surfaces.setdefault(outlet, _Surface(outlet, _case_sensitive(outlet), outlet, ()))
        # Longest first so "The Independent - Sports" wins over "The Independent".
        self._surfaces = sorted(surfaces.values(), key=lambda s: (-len(s.text), s.text))

    def _corpus_surfaces(self) -> Iterable[_Surface]:
        by_head: dict[str, list[str]] = {}
        for source in self.sources:
            by_head.setdefault(outlet_head(source).lower(), []).append(source)
        for source in self.sources:
            yield _Surface(source, _case_sensitive(source), source, (source,))
        for head_key, members in by_head.items():
            head = outlet_head(members[0])
            group = tuple(members)
            forms = {head, *self._aliases.get(head_key, ())}
            for form in sorted(forms):
                yield _Surface(form, _case_sensitive(form), head, group)

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        parts = [
            f"(?P<s{i}>{'' if s.case_sensitive else '(?i:'}{re.escape(s.text)}{'' if s.case_sensitive else ')'})"
            for i, s in enumerate(self._surfaces)
        ]
        return re.compile(rf"(?<!{_WORD})(?:{'|'.join(parts)})(?!{_WORD})")

    def find(self, text: str) -> list[PublicationMention]:
        """Every publication named in `text`, in order of appearance (overlaps resolved to the longest form)."""
        if not self._surfaces:
            return []
        mentions: list[PublicationMention] = []
        for match in self._pattern.finditer(text):
            group = match.lastgroup or ""
            surface = self._surfaces[int(group[1:])]
            if self._is_common_phrase(surface.text, text, match.end()):
                continue
            mentions.append(
                PublicationMention(
                    mention=match.group(0),
                    start=match.start(),
                    end=match.end(),
                    name=surface.name,
                    sources=list(surface.sources),
                )
            )
        return _with_clauses(text, mentions)

    def _is_common_phrase(self, surface: str, text: str, end: int) -> bool:
        """A surface form followed by its guard is a common phrase, not the outlet ("The Age of AI", "Fortune 500")."""
        guard = self._not_after.get(surface)
        return guard is not None and re.match(guard, text[end:]) is not None


def _case_sensitive(form: str) -> bool:
    """Only long multi-word names (three words or more) are safe to match ignoring case."""
    return len(form.split()) < 3


_SEGMENT_BREAK = re.compile(
    r"\s*[,;:?]\s+(?:(?:and|while|whereas|but)\s+)?(?:also\s+)?|\s+(?:and|while|whereas|but|as\s+well\s+as)\s+(?:also\s+)?"
)
# Words that say where a claim was reported, not what it claims: a segment made only of these carries no claim.
_FRAME_TEXT = """
    a an the and or of in on by to for from as at with both also according reported report reports reporting
    article articles story stories piece published publication source sources news outlet outlets multiple several
    another other same subsequent later earlier previous between after before which who what whose is was were are
    has have had that this these those according recently mentioned featured covered"""
_FRAME_WORDS = frozenset(_FRAME_TEXT.split())
MIN_CLAIM_WORDS = 3


class Segment(BaseModel):
    """A stretch of the question between clause breaks (commas, "and", "while", ...), i.e. roughly one claim."""

    text: str
    start: int
    end: int
    claim_words: int  # words that are not reporting frame, outlet names or dates

    @property
    def is_claim(self) -> bool:
        return self.claim_words >= MIN_CLAIM_WORDS


def split_segments(text: str, mentions: Sequence[PublicationMention] = ()) -> list[Segment]:
    """Clause-level segments of `text`; a segment too thin to hold a claim is merged into the one before it."""
    cuts = [0, *(pos for m in _SEGMENT_BREAK.finditer(text) for pos in (m.start(), m.end())), len(text)]
    segments: list[Segment] = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=True):
        if end <= start:
            continue
        words = _claim_words(text[start:end], start, mentions)
        if segments and (words < MIN_CLAIM_WORDS or segments[-1].claim_words < MIN_CLAIM_WORDS):
            last = segments[-1]
            segments[-1] = Segment(
                text=text[last.start : end], start=last.start, end=end, claim_words=last.claim_words + words
            )
        else:
            segments.append(Segment(text=text[start:end], start=start, end=end, claim_words=words))
    return segments


def _claim_words(piece: str, offset: int, mentions: Sequence[PublicationMention]) -> int:
    blanked = list(piece)
    for mention in mentions:
        for i in range(max(mention.start, offset), min(mention.end, offset + len(piece))):
            blanked[i - offset] = " "
    words = re.findall(r"[A-Za-z][A-Za-z'\-]*|\d+", "".join(blanked))
    return sum(1 for w in words if w.lower() not in _FRAME_WORDS and w.lower() not in MONTHS and not w.isdigit())


_CLAUSE_BREAK = re.compile(r"[,;?]\s+(?:and\s+|while\s+|whereas\s+|but\s+)?|\s+(?:and|while|whereas|but)\s+")


def _with_clauses(text: str, mentions: list[PublicationMention]) -> list[PublicationMention]:
    """A mention's clause runs from the last clause break before it to the next mention; when that holds no claim
    ("as reported by TechCrunch?"), it is the claim segment around the mention instead."""
    segments = split_segments(text, mentions)
    for i, mention in enumerate(mentions):
        floor = mentions[i - 1].end if i else 0
        breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, floor, mention.start)]
        start = breaks[-1] if breaks else floor
        end = mentions[i + 1].start if i + 1 < len(mentions) else len(text)
        if _claim_words(text[start:end], start, mentions) < MIN_CLAIM_WORDS:
            around = next((seg for seg in segments if seg.start <= mention.start < seg.end), None)
            start, end = (around.start, around.end) if around else (start, end)
        mention.clause = text[start:end].strip(" ,;'\"")
    return mentions


# --- dates ----------------------------------------------------------------------------------------------------------

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
_MONTH_CUE = r"(?i:in|of|during|since|before|after|by|until|early|mid-?|late)"
_YEAR_CUE = r"(?i:in|during|since|before|after|by|until)"
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

_BEFORE = re.compile(r"\b(?:before|prior\s+to|by|until|earlier\s+than|preceding)\s*(?:the\s+)?$", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:after|since|following|later\s+than|subsequent\s+to)\s*(?:the\s+)?$", re.IGNORECASE)


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


# --- cues and the whole analysis -----------------------------------------------------------------------------------

_YES_NO_START = re.compile(
    r"^\s*(?:(?:between|after|before|following|considering|given|based\s+on|according\s+to)\b[^?]*?,\s*)?"
    r"(?:does|did|do|is|was|are|were|has|have|had|can|could|would|will|should)\b",
    re.IGNORECASE,
)
_TEMPORAL_CUES = re.compile(
    r"\b(?:before|after|between|subsequent(?:ly)?|later|earlier|prior\s+to|following|since|same\s+day|same\s+month|"
    r"first|latest|most\s+recent|previous(?:ly)?|then|change[ds]?|consistent|inconsistent)\b",
    re.IGNORECASE,
)
_COMPARISON_CUES = re.compile(
    r"\b(?:while|whereas|in\s+contrast|compared?\s+(?:to|with)|both|same|different|similar(?:ly)?|unlike|"
    r"more|less|higher|lower|agree|contradict|consistent|inconsistent|also)\b",
    re.IGNORECASE,
)
_SAME_SOURCE = re.compile(
    r"\b(?:the\s+same\s+(?:source|publication|outlet|news\s+source)|both\s+from)\b", re.IGNORECASE
)


class QuestionSignals(BaseModel):
    question: str
    publications: list[PublicationMention] = Field(default_factory=list)
    dates: list[DateMention] = Field(default_factory=list)
    yes_no: bool = False
    temporal_cues: list[str] = Field(default_factory=list)
    comparison_cues: list[str] = Field(default_factory=list)
    same_source: bool = False  # "the same source": a later report from an outlet already named
    segments: list[Segment] = Field(default_factory=list)  # clause-level pieces, roughly one claim each

    @property
    def sources(self) -> list[str]:
        """Every corpus `source` value the question names, in order of first mention."""
        seen: dict[str, None] = {}
        for mention in self.publications:
            seen.update(dict.fromkeys(mention.sources))
        return list(seen)

    @property
    def outlets(self) -> list[PublicationMention]:
        """One mention per distinct outlet in the corpus (first mention wins), in question order."""
        first: dict[tuple[str, ...], PublicationMention] = {}
        for mention in self.publications:
            if mention.sources:
                first.setdefault(tuple(mention.sources), mention)
        return list(first.values())

    @property
    def unknown_publications(self) -> list[str]:
        """Outlets the question names that the corpus does not have."""
        return list(dict.fromkeys(m.name for m in self.publications if not m.sources))

    @property
    def exact_dates(self) -> list[date]:
        return [d for m in self.dates if m.relation is DateRelation.ON and (d := m.as_date()) is not None]

    def dates_for(self, publication_index: int) -> list[DateMention]:
        return [m for m in self.dates if m.publication == publication_index]

    def date_admits(self, published: date | None, publication_index: int | None = None) -> bool | None:
        """Whether a chunk published on `published` fits the question's dates (None: the question gives no date)."""
        relevant = self.dates if publication_index is None else self.dates_for(publication_index) or self.dates
        if not relevant or published is None:
            return None
        return any(m.admits(published) for m in relevant)


def question_signals(question: str, gazetteer: OutletGazetteer) -> QuestionSignals:
    publications = gazetteer.find(question)
    dates = _attach_dates(find_dates(question), publications)
    return QuestionSignals(
        question=question,
        publications=publications,
        dates=dates,
        yes_no=_YES_NO_START.search(question) is not None,
        temporal_cues=_cues(_TEMPORAL_CUES, question),
        comparison_cues=_cues(_COMPARISON_CUES, question),
        same_source=_SAME_SOURCE.search(question) is not None,
        segments=split_segments(question, publications),
    )


def _cues(pattern: re.Pattern[str], text: str) -> list[str]:
    return list(dict.fromkeys(re.sub(r"\s+", " ", m.group(0).lower()) for m in pattern.finditer(text)))


def _attach_dates(dates: list[DateMention], publications: Sequence[PublicationMention]) -> list[DateMention]:
    """A date belongs to the publication named nearest before it (dates follow the outlet they qualify)."""
    for mention in dates:
        owner = None
        for i, publication in enumerate(publications):
            if publication.start <= mention.start:
                owner = i
        mention.publication = owner
    return dates
