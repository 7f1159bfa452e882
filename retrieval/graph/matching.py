"""Stage 2: match each mention to at most two graph nodes, in tiers exact -> prefix -> substring -> fuzzy.

Partial matches are whole-token matches ("Bankman-Fried" inside "Sam Bankman-Fried"), never inside a word, and must
cover at least `min_coverage` of the node's name, so "Hype" never matches "Hyperscalers". A mention with no match is
dropped; a question with no match at all makes the retriever abstain instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz

from graphwire.core.names import match_form
from graphwire.retrieval.graph.models import Mention, QuestionAnalysis
from graphwire.retrieval.graph.names import NameIndex, NodeRef, name_variants
from graphwire.retrieval.models import EntityMatch, MatchTier

# Best first: question matching and GET /v1/entities order hits by this.
TIER_RANK = {MatchTier.EXACT: 0, MatchTier.PREFIX: 1, MatchTier.SUBSTRING: 2, MatchTier.FUZZY: 3}


@dataclass(frozen=True)
class MatchPolicy:
    min_coverage: float = 0.3
    per_mention: int = 2
    fuzzy_threshold: float = 88.0
    candidates: int = 25
    min_fuzzy_token_chars: int = 4
    # A one-word mention only matches partially when the word is in few node names: "Ryan" may be Ryan Giggs, but
    # "Times" or "Office" (in dozens of names) is a common word, not a reference to one of them.
    max_partial_df: int = 3


def _contains_tokens(haystack: list[str], needle: list[str]) -> int:
    """Index where `needle` occurs as a contiguous token run inside `haystack`, else -1."""
    n = len(needle)
    for i in range(len(haystack) - n + 1):
        if haystack[i : i + n] == needle:
            return i
    return -1


def classify(mention_norm: str, surface_norm: str, policy: MatchPolicy) -> tuple[MatchTier, float] | None:
    """The tier and score of one mention against one node surface (name or alias), or None."""
    if not mention_norm or not surface_norm:
        return None
    if mention_norm == surface_norm:
        return MatchTier.EXACT, 100.0
    coverage = len(mention_norm) / len(surface_norm)
    position = _contains_tokens(surface_norm.split(), mention_norm.split())
    if position >= 0 and coverage >= policy.min_coverage:
        tier = MatchTier.PREFIX if position == 0 else MatchTier.SUBSTRING
        return tier, round(100.0 * coverage, 1)
    if coverage >= policy.min_coverage:
        score = fuzz.ratio(mention_norm, surface_norm)
        if score >= policy.fuzzy_threshold:
            return MatchTier.FUZZY, round(float(score), 1)
    return None


def _best_surface(mention_norm: str, node: NodeRef, policy: MatchPolicy) -> tuple[MatchTier, float] | None:
    best: tuple[MatchTier, float] | None = None
    for surface in {node.name, *node.aliases}:
        for variant in name_variants(surface):
            result = classify(mention_norm, variant, policy)
            if result and (best is None or (TIER_RANK[result[0]], -result[1]) < (TIER_RANK[best[0]], -best[1])):
                best = result
    return best


class TieredMatcher:
    """Tiered matching against the name index: exact surfaces, then its in-memory search (partial, fuzzy)."""

    def __init__(self, policy: MatchPolicy | None = None) -> None:
        self.policy = policy or MatchPolicy()

    def match(self, analysis: QuestionAnalysis, index: NameIndex) -> list[EntityMatch]:
        matches: dict[str, EntityMatch] = {}
        pending: list[Mention] = []
        for mention in analysis.mentions:
            found = self._exact(mention, index)
            if found:
                self._keep(matches, found)
            else:
                pending.append(mention)
        pending = [m for m in pending if self._specific(m, index)]
        for mention, nodes in zip(pending, self._candidates(pending, index), strict=True):
            self._keep(matches, self._partial(mention, nodes))
        for pub in analysis.publications:
            matches.setdefault(
                pub.key,
                EntityMatch(
                    mention=pub.surface,
                    key=pub.key,
                    name=pub.name,
                    label=index.publisher,
                    tier=MatchTier.EXACT,
                    score=100,
                ),
            )
        return list(matches.values())

    @staticmethod
    def _keep(matches: dict[str, EntityMatch], found: list[EntityMatch]) -> None:
        for match in found:
            current = matches.get(match.key)
            if current is None or TIER_RANK[match.tier] < TIER_RANK[current.tier]:
                matches[match.key] = match

    def match_mention(self, mention: Mention, index: NameIndex) -> list[EntityMatch]:
        """One mention alone: exact through the name index, else partial/fuzzy through the full-text index."""
        if found := self._exact(mention, index):
            return found
        if not self._specific(mention, index):
            return []
        return self._partial(mention, self._candidates([mention], index)[0])

    def _specific(self, mention: Mention, index: NameIndex) -> bool:
        tokens = match_form(mention.text).split()
        return len(tokens) != 1 or index.token_df.get(tokens[0], 0) <= self.policy.max_partial_df

    def _exact(self, mention: Mention, index: NameIndex) -> list[EntityMatch]:
        exact = [node for variant in name_variants(mention.text) for node in index.lookup(variant)]
        for alias in mention.aliases:
            exact += [node for variant in name_variants(alias) for node in index.lookup(variant)]
        exact = [node for node in exact if node.label != index.publisher]
        return self._top(mention, [(node, MatchTier.EXACT, 100.0) for node in dict.fromkeys(exact)])

    def _partial(self, mention: Mention, nodes: list[NodeRef]) -> list[EntityMatch]:
        norm = match_form(mention.text)
        scored = []
        for node in nodes:
            result = _best_surface(norm, node, self.policy)
            if result is not None:
                scored.append((node, result[0], result[1]))
        return self._top(mention, scored)

    def _top(self, mention: Mention, scored: list[tuple[NodeRef, MatchTier, float]]) -> list[EntityMatch]:
        if not scored:
            return []
        scored.sort(key=lambda item: (TIER_RANK[item[1]], -item[2], -item[0].mentions))
        best_tier = scored[0][1]
        chosen = [item for item in scored if item[1] == best_tier][: self.policy.per_mention]
        return [
            EntityMatch(mention=mention.text, key=node.key, name=node.name, label=node.label, tier=tier, score=score)
            for node, tier, score in chosen
        ]

    def _candidates(self, mentions: list[Mention], index: NameIndex) -> list[list[NodeRef]]:
        """Candidates per mention from the in-memory name search: a phrase, else every token within one edit."""
        found: list[list[NodeRef]] = []
        for mention in mentions:
            tokens = match_form(mention.text).split()
            keys = index.search.phrase(tokens, self.policy.candidates) if tokens else []
            if tokens and not keys:
                keys = index.search.fuzzy(tokens, self.policy.min_fuzzy_token_chars, self.policy.candidates)
            found.append([index.nodes[k] for k in keys if index.nodes[k].label != index.publisher])
        return found
