"""Which relationship types a question asks about, read from its relation words.

Shared by the graph retriever (it follows the asked types one hop further) and the extractive answerer (an answer
must be reached through facts of the asked types). The words are schema data: each relationship type's `cues` in the
schema file (schema/news.yaml: "ceo", "chief executive", "run by" for CEO_OF), so another schema brings its own.
"""

from __future__ import annotations

import re

from graphwire.schema.model import GraphSchema

# "founded in late 2015", "acquired on March 3": the word dates the relation, it does not ask for the other entity.
_DATED = re.compile(
    r"\w*\s+(?:in|on|since)\s+(?:(?:late|early|mid)\W*)?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    re.IGNORECASE,
)
_COMPILED: dict[int, tuple[GraphSchema, dict[str, re.Pattern[str]]]] = {}


def cue_patterns(schema: GraphSchema) -> dict[str, re.Pattern[str]]:
    """Relationship type -> one regex of its cue words (matched at word starts), compiled once per schema."""
    cached = _COMPILED.get(id(schema))
    if cached is None or cached[0] is not schema:
        patterns = {
            rel_type: re.compile(r"\b(?:" + "|".join(cues) + ")", re.IGNORECASE)
            for rel_type, cues in schema.relation_cues.items()
        }
        cached = _COMPILED[id(schema)] = (schema, patterns)
    return cached[1]


def asked_relations(question: str, schema: GraphSchema) -> dict[str, int]:
    """Relationship types the question asks about, with how often (a chain: "supplies the supplier" -> 2), read
    from `schema`'s cue words."""
    counts: dict[str, int] = {}
    for rel_type, pattern in cue_patterns(schema).items():
        hits = sum(1 for m in pattern.finditer(question) if not _DATED.match(question, m.end()))
        if hits:
            counts[rel_type] = hits
    return counts
