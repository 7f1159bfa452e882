"""Tokenisation for lexical retrieval over news text: keeps entities and numbers whole and searchable by their parts.

"GPT-4 Turbo's $1,000 U.S. launch" -> ["gpt-4", "gpt", "4", "turbo", "1000", "us", "launch"]: hyphenated and dotted
names are kept whole and split, thousands separators and possessives are dropped, English stopwords are removed and
plural endings are folded ("sportsbooks" and "sportsbook" meet).
"""

from __future__ import annotations

import re
import unicodedata

from graphwire.core.names import POSSESSIVE
from graphwire.schema.lexicon import word_list

STOPWORDS = word_list("bm25_stopwords")  # schema/lexicon/bm25_stopwords.txt

_TOKEN = re.compile(r"[a-z0-9]+(?:[.\-+&][a-z0-9]+)*")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_ACRONYM_DOTS = re.compile(r"\b(?:[a-z]\.){2,}")


def fold_plural(token: str) -> str:
    if len(token) <= 3 or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def fold_text(text: str) -> str:
    """NFKC, lower case, straight apostrophes, no thousands separators, possessives or acronym dots."""
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'").replace("\u2018", "'")
    text = _THOUSANDS.sub("", text)
    text = POSSESSIVE.sub("", text)
    return _ACRONYM_DOTS.sub(lambda m: m.group(0).replace(".", "") + " ", text)


def bm25_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for match in _TOKEN.finditer(fold_text(text)):
        word = match.group(0)
        parts = re.split(r"[.\-+&]", word)
        if len(parts) > 1 and not _is_number(word):
            tokens.append(word)
            tokens.extend(fold_plural(p) for p in parts if p and p not in STOPWORDS)
        elif word not in STOPWORDS:
            tokens.append(fold_plural(word))
    return tokens


def _is_number(word: str) -> bool:
    return word.replace(".", "", 1).isdigit()
