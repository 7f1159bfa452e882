"""Tokenisation for lexical retrieval over news text: keeps entities and numbers whole and searchable by their parts.

"GPT-4 Turbo's $1,000 U.S. launch" -> ["gpt-4", "gpt", "4", "turbo", "1000", "us", "launch"]: hyphenated and dotted
names are kept whole and split, thousands separators and possessives are dropped, English stopwords are removed and
plural endings are folded ("sportsbooks" and "sportsbook" meet).
"""

from __future__ import annotations

import re
import unicodedata

from graphwire.core.names import POSSESSIVE

_STOPWORD_TEXT = """
    a about above after again against all also am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
    only or other our ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

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
