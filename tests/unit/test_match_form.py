"""`match_form` is the form every name comparison uses; its fast paths (ASCII text skips decomposition, the
possessive pattern scans for the apostrophe first) must give what the plain definition gives, on any text."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from graphwire.core.names import POSSESSIVE, match_form

_PLAIN_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def _plain(text: str) -> str:
    """The definition: possessive dropped, NFKD, combining marks dropped, lower case, non-alphanumerics one space."""
    text = _PLAIN_POSSESSIVE.sub("", text)
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
    return _NON_ALNUM.sub(" ", kept).strip()


_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from("aAsS'’ -.É\u0301\u0130\ufb01\u2163ß"),  # the characters the fast paths are about
        st.characters(codec="utf-8"),
    ),
    max_size=40,
)


@settings(max_examples=3000, deadline=None)
@given(_TEXT)
def test_match_form_is_the_plain_definition(text: str) -> None:
    assert match_form(text) == _plain(text)
    assert POSSESSIVE.sub("", text) == _PLAIN_POSSESSIVE.sub("", text)


def test_examples() -> None:
    assert match_form("Sam Bankman-Fried's") == "sam bankman fried"
    assert match_form("Musk’s “Tesla” — Café") == "musk tesla cafe"
    assert match_form("İstanbul's ﬁnance") == "istanbul finance"
    assert match_form("the boss's's") == "the boss"
