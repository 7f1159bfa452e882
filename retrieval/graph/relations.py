"""Which relationship types a question asks about, read from its relation words.

Shared by the graph retriever (it follows the asked types one hop further) and the extractive answerer (an answer
must be reached through facts of the asked types).
"""

from __future__ import annotations

import re

# Words in a question that ask about a relationship type: regex fragments matched at word starts.
RELATION_WORDS: dict[str, tuple[str, ...]] = {
    # Specific words only: generic verbs ("made", "work", "launch") appear in most news questions and would let a
    # loosely related fact pass for an answer. REPORTED_BY is provenance, never the thing asked.
    "SUPPLIES": ("suppl", "vendor"),
    "CEO_OF": ("ceo", "chief executive", "boss", "runs", "run by", "who leads", r"leads?\b", "led by"),
    "WORKS_FOR": ("employ", "board member", "board of", "boards of", "sits on the board", "hired", "staffer",
                  "cfo", "chief financial", "finance chief"),
    "FOUNDED": ("found", "co-found", "creator"),
    "OWNS": ("owns", "owned", "owner", "acquir", "acquisition", "purchas", "parent compan", "subsidiar"),
    # "investment firm" names a kind of company, not the relation
    "INVESTED_IN": (r"invest(?!ment\s+(?:firm|bank|fund|compan|group|house|manager))", "backer",
                    r"back(?:s|ed|ing)?\b", "stake in"),
    "SUED": ("sue", "sued", "lawsuit", "suing"),
    "CHARGED_WITH": ("charged", "indicted", "convicted"),
    "TESTIFIED_IN": ("testif",),
    "ROMANTIC_LINK": ("dating", "married", "wife", "husband", "girlfriend", "boyfriend", "engaged"),
    "FAMILY_OF": ("son of", "daughter of", "brother", "sister", "father", "mother"),
    "ATTENDED": ("attended",),
    "LOCATED_IN": ("headquarter", "based in", r"based\b(?!\s+on)", "located in"),
    "SCORED_IN": ("scored",),
    "PRODUCED": ("manufactur", "maker of", "developer of"),
    "RECEIVED": ("award", "prize", "trophy"),
    "COMPETES_WITH": ("rival", "competitor"),
    "REGULATES": ("regulator", "fined"),
}  # fmt: skip
_PATTERNS = {
    rel_type: re.compile(r"\b(?:" + "|".join(stems) + ")", re.IGNORECASE) for rel_type, stems in RELATION_WORDS.items()
}


# "founded in late 2015", "acquired on March 3": the word dates the relation, it does not ask for the other entity.
_DATED = re.compile(
    r"\w*\s+(?:in|on|since)\s+(?:(?:late|early|mid)\W*)?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    re.IGNORECASE,
)


def asked_relations(question: str) -> dict[str, int]:
    """Relationship types the question asks about, with how often (a chain: "supplies the supplier" -> 2)."""
    counts: dict[str, int] = {}
    for rel_type, pattern in _PATTERNS.items():
        hits = sum(1 for m in pattern.finditer(question) if not _DATED.match(question, m.end()))
        if hits:
            counts[rel_type] = hits
    return counts
