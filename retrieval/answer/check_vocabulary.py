"""The schema's words for each relationship, for answer checking: "chief executive", "CEO", "boss" and "runs" all
say CEO_OF, so an answer that writes one is supported by evidence that writes another.

The words are the relationship's question cues and answer phrases (schema `relations.<TYPE>.cues`, `phrases`), read
as plain words: a cue's regex marks are dropped ("leads?\\b" is "lead", "invest(?!ment firm)" is "invest") and its last
word matches as a prefix ("acquir": acquired, acquisition).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphwire.schema.model import GraphSchema

_OPTIONAL_CHAR = re.compile(r".\?")
_WORDS = re.compile(r"[^\W\d_][\w'-]*")


def _plain(cue: str) -> str:
    """A cue's leading literal words: up to its first group, without `\\b`, `\\s+` or optional characters."""
    text = cue.replace("\\s+", " ").replace("\\b", " ").split("(", 1)[0]
    return " ".join(_WORDS.findall(_OPTIONAL_CHAR.sub("", text))).lower()


@dataclass(frozen=True)
class RelationVocabulary:
    """Relationship type -> its words, and one pattern finding any of them in a text."""

    words: dict[str, tuple[str, ...]]

    @classmethod
    def of(cls, schema: GraphSchema) -> RelationVocabulary:
        words: dict[str, list[str]] = {}
        for rel_type, cues in schema.relation_cues.items():
            words.setdefault(rel_type, []).extend(_plain(cue) for cue in cues)
        for rel_type, phrases in schema.answer_phrases.items():
            words.setdefault(rel_type, []).extend(p.lower() for p in phrases)
        return cls({t: tuple(dict.fromkeys(w for w in ws if w)) for t, ws in words.items()})

    @property
    def _patterns(self) -> list[tuple[str, re.Pattern[str]]]:
        return _compiled(self)

    def find(self, text: str) -> list[tuple[str, int, int]]:
        """(type, start, end) of every relationship word in `text`, case ignored."""
        return [(t, m.start(), m.end()) for t, pattern in self._patterns for m in pattern.finditer(text)]

    def render(self, rel_type: str) -> str:
        return ", ".join(self.words.get(rel_type, ()))


_COMPILED: dict[int, tuple[RelationVocabulary, list[tuple[str, re.Pattern[str]]]]] = {}


def _compiled(vocabulary: RelationVocabulary) -> list[tuple[str, re.Pattern[str]]]:
    cached = _COMPILED.get(id(vocabulary))
    if cached is None or cached[0] is not vocabulary:
        patterns = []
        for rel_type, phrases in vocabulary.words.items():
            alternatives = [
                r"\s+".join(map(re.escape, p.split())) + r"[\w'-]*" for p in sorted(phrases, key=len, reverse=True)
            ]
            patterns.append((rel_type, re.compile(rf"(?<!\w)(?:{'|'.join(alternatives)})", re.IGNORECASE)))
        cached = _COMPILED[id(vocabulary)] = (vocabulary, patterns)
    return cached[1]
