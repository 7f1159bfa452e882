"""Entity names and titles as a dictionary: find the entities a question names, longest match first.

This is PPR's own seeder for corpora where titles are the strongest entity signal (encyclopedia-style passages) and
the fallback when no other matcher is given; any object with `match(question) -> list[EntityMatch]` can replace it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Protocol

from rapidfuzz import fuzz, process

from graphwire.core.names import title_qualifier, token_form
from graphwire.retrieval.models import EntityMatch, MatchTier
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.schema.lexicon import generic_words

MAX_SPAN_TOKENS = 6
# A whitespace token's possessive end, anchored at the token's end: core.names.POSSESSIVE would also strip it before
# trailing punctuation ("Musk's?"), which would change the spans the dictionary looks up.
_POSSESSIVE_END = re.compile(r"['’]s$")


class EntityMatcher(Protocol):
    def match(self, question: str) -> list[EntityMatch]: ...


class DictionaryMatcher:
    """Exact (normalised) n-gram lookup over names and aliases, then fuzzy lookup for capitalised spans left over."""

    def __init__(self, snapshot: GraphSnapshot, fuzzy_cutoff: float = 90.0, titles_only: bool = False) -> None:
        self.snapshot = snapshot
        self.fuzzy_cutoff = fuzzy_cutoff
        titled = snapshot.titled if titles_only else None
        self._lookup: dict[str, list[int]] = defaultdict(list)
        generic = generic_words()  # never a name on its own (schema/lexicon/generic_words.txt)
        for idx, (name, aliases) in enumerate(zip(snapshot.entity_names, snapshot.entity_aliases, strict=True)):
            if titled is not None and idx not in titled:
                continue
            for surface in {name, *aliases}:
                norm = token_form(surface)
                if norm and norm not in generic and idx not in self._lookup[norm]:
                    self._lookup[norm].append(idx)
        self._surfaces = list(self._lookup)
        # "novel" for "The Glass Harbor (novel)": the words that tell pages of one name apart
        self._qualifiers = [frozenset(token_form(title_qualifier(name)).split()) for name in snapshot.entity_names]

    def match(self, question: str) -> list[EntityMatch]:
        raw_tokens = question.split()
        tokens = [token_form(_POSSESSIVE_END.sub("", t)) for t in raw_tokens]
        used = [False] * len(tokens)
        matches: list[EntityMatch] = []
        for size in range(min(MAX_SPAN_TOKENS, len(tokens)), 0, -1):
            for start in range(0, len(tokens) - size + 1):
                if any(used[start : start + size]):
                    continue
                span = " ".join(t for t in tokens[start : start + size] if t)
                hits = self._lookup.get(span)
                if not hits:
                    continue
                mention = " ".join(raw_tokens[start : start + size])
                if len(hits) > 1:  # pages of one name: the question's other words may tell which it means
                    hits = self._agreeing(hits, _context(tokens[:start] + tokens[start + size :]))
                matches.extend(self._match(mention, idx, MatchTier.EXACT, 1.0) for idx in hits)
                used[start : start + size] = [True] * size
        matches.extend(self._fuzzy(raw_tokens, used))
        return matches

    def _agreeing(self, hits: list[int], context: set[str]) -> list[int]:
        """Of the pages one span names, those whose qualifier the rest of the question repeats ("the novel X" is
        "X (novel)", not the film "X"); all of them when none does."""
        agreeing = [idx for idx in hits if self._qualifiers[idx] & context]
        return agreeing or hits

    def _fuzzy(self, raw_tokens: list[str], used: list[bool]) -> list[EntityMatch]:
        """Runs of capitalised tokens not matched exactly, looked up with rapidfuzz (typos, missing punctuation)."""
        found: list[EntityMatch] = []
        start = 0
        while start < len(raw_tokens):
            if used[start] or not raw_tokens[start][:1].isupper():
                start += 1
                continue
            end = start
            while end < len(raw_tokens) and not used[end] and raw_tokens[end][:1].isupper():
                end += 1
            mention = _POSSESSIVE_END.sub("", " ".join(raw_tokens[start:end]).strip(" ?.,;:!\"'"))
            best = process.extractOne(token_form(mention), self._surfaces, scorer=fuzz.ratio)
            if best and best[1] >= self.fuzzy_cutoff and len(token_form(mention)) > 3:
                found.extend(
                    self._match(mention, idx, MatchTier.FUZZY, best[1] / 100.0) for idx in self._lookup[best[0]]
                )
            start = end
        return found

    def _match(self, mention: str, idx: int, tier: MatchTier, score: float) -> EntityMatch:
        snap = self.snapshot
        return EntityMatch(
            mention=mention.strip(" ?.,;:!\"'"),
            key=snap.entity_keys[idx],
            name=snap.entity_names[idx],
            label=snap.entity_labels[idx],
            tier=tier,
            score=score,
        )


def _context(tokens: list[str]) -> set[str]:
    """The question's other words, each also without a plural's "s" ("both films" agrees with "(film)")."""
    words = {t for t in tokens if t}
    return words | {t[:-1] for t in words if len(t) > 3 and t.endswith("s")}
