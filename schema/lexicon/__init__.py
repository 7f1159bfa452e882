"""Word lists that are data, not code: read once from the text files beside this module."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

LEXICON_DIR = Path(__file__).resolve().parent


@cache
def phrase_list(name: str) -> tuple[str, ...]:
    """The non-comment, non-blank lines of `<name>.txt`, lower-cased, in file order (first occurrence kept)."""
    path = LEXICON_DIR / f"{name}.txt"
    lines = (line.split("#", 1)[0].strip().lower() for line in path.read_text(encoding="utf-8").splitlines())
    return tuple(dict.fromkeys(line for line in lines if line))


@cache
def word_list(name: str) -> frozenset[str]:
    """The non-comment, non-blank lines of `<name>.txt`, lower-cased."""
    return frozenset(phrase_list(name))


@cache
def phrase_pattern(name: str, gap: str = r"\s+") -> str:
    """A regex alternation of the phrases of `<name>.txt`, in file order (the first that matches wins, as in a
    hand-written alternation). Words are matched literally and joined by `gap`; a trailing `*` on a phrase
    stands for any further word characters ("chang*": "change", "changed", ...)."""
    return "(?:" + "|".join(_phrase_regex(phrase, gap) for phrase in phrase_list(name)) + ")"


def _phrase_regex(phrase: str, gap: str) -> str:
    stem, wildcard = (phrase[:-1], r"\w*") if phrase.endswith("*") else (phrase, "")
    return gap.join(re.escape(word) for word in stem.split()) + wildcard


def generic_words() -> frozenset[str]:
    return word_list("generic_words")


# A word the corpus writes in lower case this many times as often as capitalised is a common word, not a name.
LOWERCASE_DOMINANCE = 2.0


def written_as_word(lower: int, capitalised: int) -> bool:
    """Whether a corpus that writes a word `lower` times in lower case and `capitalised` times capitalised uses it
    as a common word ("house", "magazines") rather than as a name ("Oahu")."""
    return lower >= LOWERCASE_DOMINANCE * max(capitalised, 1)
