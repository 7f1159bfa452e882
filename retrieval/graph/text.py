"""Text helpers shared by the graph retriever's stages (names are compared in `core.names.match_form`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphwire.core.names import POSSESSIVE, match_form
from graphwire.schema.lexicon import word_list

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


# Schema lexicon files (schema/lexicon/*.txt): stop words, and capitalised words that open questions or name
# calendar parts (never an entity mention on their own).
STOPWORDS = word_list("graph_stopwords")
QUESTION_WORDS = word_list("question_opening_words")
CALENDAR_WORDS = word_list("calendar_words")
