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
