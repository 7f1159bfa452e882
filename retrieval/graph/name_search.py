"""Stage 2's partial and fuzzy candidates, found in memory instead of through Neo4j's full-text index.

A full-text read costs a transaction (3.5-7 ms on a small machine, two of them for a question whose phrase query
finds nothing) for a lookup over names the process already holds. `NameSearch` answers the same two queries over the
name index's surfaces (every node's name and aliases, in `match_form` tokens):
- `phrase`: nodes with a surface holding the mention's tokens as one contiguous run;
- `fuzzy`: nodes whose surfaces hold, for every token of the mention, that token or one at one edit (insertion,
  deletion, substitution or transposition of neighbours) when it has at least `min_chars` characters.
Candidates come best first (fewest edits, then the shortest surface, as a full-text score's length norm would have
it, then the most mentioned) and are cut to `limit`; stage 2 then grades each one (retrieval/graph/matching.py).
One-edit neighbours are found through an index of each vocabulary token with one character deleted, so a lookup
costs a few dictionary reads per token, not a scan of the vocabulary.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from graphwire.core.names import match_form


def _deletions(token: str) -> set[str]:
    return {token[:i] + token[i + 1 :] for i in range(len(token))}


def one_edit(a: str, b: str) -> bool:
    """True when `a` and `b` differ by at most one insertion, deletion, substitution or adjacent transposition."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


@dataclass
class NameSearch:
    """Token postings over the nodes' surfaces (name and aliases), keyed by node key."""

    surfaces: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # key -> its surfaces' tokens
    mentions: dict[str, int] = field(default_factory=dict)  # key -> MENTIONS count (the tie-break)
    postings: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # token -> keys
    deleted: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # token minus a char -> tokens

    def add(self, key: str, surfaces: Iterable[str], mentions: int) -> None:
        forms = list(dict.fromkeys(tuple(match_form(s).split()) for s in surfaces))
        self.surfaces[key] = [f for f in forms if f]
        self.mentions[key] = mentions
        for tokens in self.surfaces[key]:
            for token in tokens:
                if token not in self.postings:
                    for variant in _deletions(token):
                        self.deleted[variant].append(token)
                self.postings[token].add(key)

    def phrase(self, tokens: list[str], limit: int) -> list[str]:
        """Keys of nodes with a surface holding `tokens` as one run, best first."""
        keys = self._holding([{t} for t in tokens])
        found = [k for k in keys if any(_holds(surface, tokens) for surface in self.surfaces[k])]
        return self._best(found, dict.fromkeys(found, 0), limit)

    def fuzzy(self, tokens: list[str], min_chars: int, limit: int) -> list[str]:
        """Keys of nodes holding every token, or one at one edit when it has `min_chars` characters, best first."""
        options = [self._neighbours(t) if len(t) >= min_chars else {t} for t in tokens]
        keys = self._holding(options)
        edits = {k: self._edits(k, tokens, options) for k in keys}
        return self._best(list(keys), edits, limit)

    def _neighbours(self, token: str) -> set[str]:
        """Vocabulary tokens at most one edit from `token`."""
        found = {token} if token in self.postings else set()
        found.update(self.deleted.get(token, ()))  # one insertion away
        for variant in _deletions(token):
            if variant in self.postings:  # one deletion away
                found.add(variant)
            found.update(self.deleted.get(variant, ()))  # substitutions and transpositions, checked below
        return {t for t in found if one_edit(token, t)}

    def _holding(self, options: list[set[str]]) -> set[str]:
        keys: set[str] | None = None
        for terms in sorted(options, key=lambda ts: sum(len(self.postings.get(t, ())) for t in ts)):
            holders = set().union(*(self.postings.get(t, set()) for t in terms))
            keys = holders if keys is None else keys & holders
            if not keys:
                return set()
        return keys or set()

    def _edits(self, key: str, tokens: list[str], options: list[set[str]]) -> int:
        held = {t for surface in self.surfaces[key] for t in surface}
        return sum(0 if token in held else 1 for token, terms in zip(tokens, options, strict=True) if terms & held)

    def _best(self, keys: list[str], edits: dict[str, int], limit: int) -> list[str]:
        def order(key: str) -> tuple[int, int, int, str]:
            shortest = min((len(s) for s in self.surfaces[key]), default=0)
            return edits[key], shortest, -self.mentions[key], key

        return sorted(keys, key=order)[:limit]


def _holds(surface: tuple[str, ...], tokens: list[str]) -> bool:
    n = len(tokens)
    return any(list(surface[i : i + n]) == tokens for i in range(len(surface) - n + 1))
