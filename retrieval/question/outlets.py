"""Publications named in a question, from a gazetteer of the corpus's `source` values plus short outlet forms
("CNBC" for "Cnbc | World Business News Leader", "The Independent" for its three sections). Short or common-word
names match case-sensitively on word boundaries so "on the verge of" or "the age of" never name an outlet. The
outlets a question may name beyond the corpus, the short forms and the common-phrase guards are schema data (the
news schema's gazetteer file: `question_outlets`, `question_aliases`, `not_outlet_after`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from pydantic import BaseModel, Field

from graphwire.retrieval.question.clauses import with_clauses
from graphwire.schema.model import GraphSchema

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
    those, the short forms and the common-phrase guards come from."""

    def __init__(
        self,
        sources: Iterable[str],
        known_outlets: Iterable[str] | None = None,
        *,
        schema: GraphSchema,
    ) -> None:
        data = schema.gazetteer_data
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
        return with_clauses(text, mentions)

    def _is_common_phrase(self, surface: str, text: str, end: int) -> bool:
        """A surface form followed by its guard is a common phrase, not the outlet ("The Age of AI", "Fortune 500")."""
        guard = self._not_after.get(surface)
        return guard is not None and re.match(guard, text[end:]) is not None


def _case_sensitive(form: str) -> bool:
    """Only long multi-word names (three words or more) are safe to match ignoring case."""
    return len(form.split()) < 3
