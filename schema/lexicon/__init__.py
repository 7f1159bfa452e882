"""Word lists that are data, not code: read once from the text files beside this module."""

from __future__ import annotations

from functools import cache
from pathlib import Path

LEXICON_DIR = Path(__file__).resolve().parent


@cache
def word_list(name: str) -> frozenset[str]:
    """The non-comment, non-blank lines of `<name>.txt`, lower-cased."""
    path = LEXICON_DIR / f"{name}.txt"
    lines = (line.split("#", 1)[0].strip().lower() for line in path.read_text(encoding="utf-8").splitlines())
    return frozenset(line for line in lines if line)


def generic_words() -> frozenset[str]:
    return word_list("generic_words")


def yes_no_auxiliaries() -> frozenset[str]:
    """The auxiliaries that open a yes/no question ("did", "is", "has", ...)."""
    return word_list("yes_no_auxiliaries")


def yes_no_pattern() -> str:
    """A regex alternation of `yes_no_auxiliaries()` (longest first), to be followed by a word boundary."""
    return "(?:" + "|".join(sorted(yes_no_auxiliaries(), key=lambda w: (-len(w), w))) + ")"


# A word the corpus writes in lower case this many times as often as capitalised is a common word, not a name.
LOWERCASE_DOMINANCE = 2.0


def written_as_word(lower: int, capitalised: int) -> bool:
    """Whether a corpus that writes a word `lower` times in lower case and `capitalised` times capitalised uses it
    as a common word ("house", "magazines") rather than as a name ("Oahu")."""
    return lower >= LOWERCASE_DOMINANCE * max(capitalised, 1)
