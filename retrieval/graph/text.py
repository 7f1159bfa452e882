"""Text helpers shared by the graph retriever's stages (names are compared in `core.names.match_form`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphwire.core.names import POSSESSIVE, match_form

# A word: letters/digits, allowing inner apostrophes, hyphens, dots and ampersands ("Bankman-Fried", "U.S.", "AT&T").
_WORD = re.compile(r"[0-9A-Za-zÀ-ÖØ-öø-ÿ](?:[0-9A-Za-zÀ-ÖØ-öø-ÿ&'’.\-]*[0-9A-Za-zÀ-ÖØ-öø-ÿ])?")


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int

    @property
    def capitalised(self) -> bool:
        """Proper-noun-like: starts upper-case, or mixes case/digits ("iPhone", "GPT-4")."""
        first = self.text[0]
        return first.isupper() or first.isdigit() or any(ch.isupper() for ch in self.text[1:])


def tokenize(text: str) -> list[Token]:
    tokens = []
    for match in _WORD.finditer(text):
        word = POSSESSIVE.sub("", match.group())
        tokens.append(Token(word, match.start(), match.start() + len(word)))
    return tokens


def content_terms(text: str) -> set[str]:
    """Lower-case terms of three or more characters that are not stop words; for cheap lexical overlap."""
    return {t for t in match_form(text).split() if len(t) > 2 and t not in STOPWORDS}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _words(
    """a about above according across after again against all also am an and any are article articles as at be
    because been before being between both but by can could did do does doing done during each either else for from
    had has have having he her here hers him his how i if in into is it its itself just least less made make many
    may me might more most much must my neither no nor not now of off on once one only or other our out over own
    per published reported report reports reporting said same says she should since so some such than that the their
    them then there these they this those though through to too under until up upon very was we were what when
    where whether which while who whom whose why will with within without would yes you your"""
)

# Capitalised words that open questions or name calendar parts: never an entity mention on their own.
QUESTION_WORDS = _words(
    """according after based before between both considering did do does during following given has have how if in
    is was were what when where which who whom whose why would could should can are as on the a an and or but from
    for of to with by this that these those it its yes no"""
)
CALENDAR_WORDS = _words(
    """january february march april may june july august september october november december jan feb mar apr jun
    jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday today yesterday
    tomorrow"""
)
