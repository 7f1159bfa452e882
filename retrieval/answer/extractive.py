"""The answerer that needs no LLM: composes a short answer from the retrieved facts and chunks, or abstains.

- who / which / what questions: the entity the facts point at (not one the question names), preferring facts whose
  relationship the question asks about, paths through the asked relationship as many times as the question chains it
  ("the supplier of the supplier"), and intermediates that join two question entities;
- yes/no questions about two named outlets and before/after: compares the dates of each outlet's best chunk;
- other yes/no questions: "Yes" when a KEY fact with the asked relationship joins the question's entities;
- everything else, too little evidence, or a question citing an outlet the graph does not have: exactly
  "Insufficient information." (never a guess).
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import dataclass
from datetime import date
from typing import Any

from retrieval.graph.text import content_terms
from retrieval.models import ABSTENTION, Answer, Citation, Fact, FactTier, RankedChunk, RetrievalResult

# Words in a question that ask about a relationship type (stems, matched at word starts).
RELATION_WORDS: dict[str, tuple[str, ...]] = {
    # Specific words only: generic verbs ("made", "work", "launch") appear in most news questions and would let a
    # loosely related fact pass for an answer. REPORTED_BY is provenance, never the thing asked.
    "SUPPLIES": ("suppl", "vendor"),
    "CEO_OF": ("ceo", "chief executive", "boss", "runs", "who leads"),
    "WORKS_FOR": ("employ", "board member", "board of", "boards of", "sits on the board", "hired", "staffer"),
    "FOUNDED": ("found", "co-found", "creator"),
    "OWNS": ("owns", "owned", "owner", "acquir", "parent compan", "subsidiar"),
    "INVESTED_IN": ("invest", "backer", "stake in"),
    "SUED": ("sue", "sued", "lawsuit", "suing"),
    "CHARGED_WITH": ("charged", "indicted", "convicted"),
    "TESTIFIED_IN": ("testif",),
    "ROMANTIC_LINK": ("dating", "married", "wife", "husband", "girlfriend", "boyfriend", "engaged"),
    "FAMILY_OF": ("son of", "daughter of", "brother", "sister", "father", "mother"),
    "ATTENDED": ("attended",),
    "LOCATED_IN": ("headquarter", "based in"),
    "SCORED_IN": ("scored",),
    "PRODUCED": ("manufactur", "maker of", "developer of"),
    "RECEIVED": ("award", "prize", "trophy"),
    "COMPETES_WITH": ("rival", "competitor"),
    "REGULATES": ("regulator", "fined"),
}
# What a wh-question asks for, by the noun after "which"/"what" or by "who".
LABEL_WORDS: dict[str, tuple[str, ...]] = {
    "Person": ("person", "individual", "executive", "ceo", "founder", "player", "who", "whom", "man", "woman"),
    "Organization": ("company", "companies", "firm", "organization", "organisation", "startup", "start-up",
                     "business", "supplier", "team", "maker", "manufacturer", "carmaker", "miner", "bank", "group"),
    "Product": ("product", "device", "model", "app", "service", "platform", "car", "sedan", "phone"),
    "Location": ("city", "country", "where", "place", "region"),
    "Event": ("event", "trial", "match", "tournament", "conference"),
    "Award": ("award", "prize", "trophy"),
    "Publication": ("outlet", "publication", "newspaper", "magazine"),
}  # fmt: skip
_WH = re.compile(r"^\s*(?:[^?]*?,\s*)?(who|whom|which|what)\b(?:\s+(\w+))?", re.IGNORECASE)
_TIER_WEIGHT = {FactTier.KEY: 3.0, FactTier.BRIDGE: 2.5, FactTier.DIRECT: 1.0}


@dataclass
class _Candidate:
    name: str
    label: str
    score: float = 0.0
    facts: list[Fact] | None = None


def asked_relations(question: str) -> dict[str, int]:
    """Relationship types the question asks about, with how often (a chain: "supplies the supplier" -> 2)."""
    low = question.lower()
    counts: dict[str, int] = {}
    for rel_type, stems in RELATION_WORDS.items():
        hits = sum(len(re.findall(r"\b" + re.escape(stem), low)) for stem in stems)
        if hits:
            counts[rel_type] = hits
    return counts


def asked_label(question: str) -> str | None:
    match = _WH.search(question)
    if match is None:
        return None
    wh, noun = match.group(1).lower(), (match.group(2) or "").lower()
    for label, words in LABEL_WORDS.items():
        if noun and any(noun.startswith(w) for w in words):
            return label
    return "Person" if wh in ("who", "whom") else None


def _distances(facts: list[Fact], starts: set[str], types: set[str]) -> dict[str, int]:
    """Hops from the question's entities to every entity, walking only facts of the asked types (both ways)."""
    adjacency: dict[str, set[str]] = defaultdict(set)
    for fact in facts:
        if fact.relationship in types:
            adjacency[fact.subject].add(fact.object)
            adjacency[fact.object].add(fact.subject)
    distance = {name: 0 for name in starts}
    queue = deque(starts)
    while queue:
        node = queue.popleft()
        for neighbour in adjacency[node]:
            if neighbour not in distance:
                distance[neighbour] = distance[node] + 1
                queue.append(neighbour)
    return distance


class ExtractiveAnswerer:
    name = "extractive"

    def __init__(self, max_citations: int = 3) -> None:
        self.max_citations = max_citations

    def answer(self, question: str, result: RetrievalResult) -> Answer:
        if not result.entities or result.details.get("abstain_reason"):
            return self._abstain()
        if result.details.get("unknown_publications"):
            return (
                self._abstain()
            )  # the question cites an outlet the corpus does not have: its claims cannot be checked
        yes_no = bool(result.details.get("yes_no")) or _looks_yes_no(question)
        if yes_no:
            return self._yes_no(question, result)
        return self._wh(question, result)

    # who / which / what ---------------------------------------------------------------------------------------
    def _wh(self, question: str, result: RetrievalResult) -> Answer:
        matched = {e.name for e in result.entities}
        asked = asked_relations(question)
        label = asked_label(question)
        candidates = self._candidates(result.facts, matched, asked, label)
        if not candidates:
            return self._abstain()
        best = candidates[0]
        return Answer(text=best.name, answerer=self.name, citations=self._cite(best.facts or [], result))

    def _candidates(
        self, facts: list[Fact], matched: set[str], asked: dict[str, int], label: str | None
    ) -> list[_Candidate]:
        """Entities the facts point at, scored; only those reached through the asked relationship, or joining two
        of the question's (non-outlet) entities through BRIDGE facts, qualify."""
        chain_type = max(asked, key=lambda t: asked[t]) if asked else None
        depth = _distances(facts, matched, {chain_type}) if chain_type else {}
        target = min(asked[chain_type], 2) if chain_type else 0
        found: dict[str, _Candidate] = {}
        relevant_hits: set[str] = set()
        bridged: dict[str, set[str]] = defaultdict(set)  # candidate -> question entities it joins
        for fact in facts:
            relevant = fact.relationship in asked
            if not relevant and (fact.tier is not FactTier.BRIDGE or fact.relationship == "REPORTED_BY"):
                continue
            ends = ((fact.subject, fact.subject_label, fact.object), (fact.object, fact.object_label, fact.subject))
            for name, node_label, other in ends:
                if name in matched or (label and node_label != label) or (not label and node_label == "Publication"):
                    continue
                cand = found.setdefault(name, _Candidate(name, node_label, 0.0, []))
                weight = _TIER_WEIGHT[fact.tier] * (2.0 if relevant else 1.0)
                if chain_type and depth.get(name) == target:
                    weight *= 3.0
                cand.score += weight
                assert cand.facts is not None
                cand.facts.append(fact)
                if relevant:
                    relevant_hits.add(name)
                elif other in matched:
                    bridged[name].add(other)
        qualified = [c for c in found.values() if c.name in relevant_hits or len(bridged[c.name]) >= 2]
        ranked = sorted(qualified, key=lambda c: (-c.score, c.name))
        if len(ranked) > 1 and ranked[0].score == ranked[1].score:
            return []  # a tie is not an answer
        return ranked

    # yes / no -------------------------------------------------------------------------------------------------
    def _yes_no(self, question: str, result: RetrievalResult) -> Answer:
        outlets: list[dict[str, Any]] = list(result.details.get("outlets") or [])
        order = result.details.get("order")
        if len(outlets) >= 2 and order in ("before", "after"):
            if not asks_about_order(question):
                return self._abstain()  # "was there a change after ...": the dates alone do not answer it
            return self._temporal(question, result, outlets[:2], str(order))
        asked = set(asked_relations(question))
        key_facts = [f for f in result.facts if f.tier is FactTier.KEY and f.relationship != "REPORTED_BY"]
        supporting = [f for f in key_facts if f.relationship in asked]  # a link of some other kind proves nothing
        if supporting:
            return Answer(text="Yes", answerer=self.name, citations=self._cite(supporting, result))
        return self._abstain()

    def _temporal(self, question: str, result: RetrievalResult, outlets: list[dict[str, Any]], order: str) -> Answer:
        picks: list[RankedChunk] = []
        for outlet in outlets:
            terms = content_terms(outlet.get("clause") or question)  # the part of the question about this outlet
            sources = set(outlet.get("sources") or [outlet.get("name")])
            own = [c for c in result.chunks if c.source in sources and c.published_at is not None]
            if not own:
                return self._abstain()
            picks.append(max(own, key=lambda c: (len(terms & content_terms(c.text)), -result.chunks.index(c))))
        first, second = (p.published_at for p in picks)
        assert isinstance(first, date) and isinstance(second, date)
        if first == second:
            return self._abstain()
        holds = first < second if order == "before" else first > second
        citations = [_citation(c) for c in picks]
        return Answer(text="Yes" if holds else "No", answerer=self.name, citations=citations)

    # helpers --------------------------------------------------------------------------------------------------
    def _cite(self, facts: list[Fact], result: RetrievalResult) -> list[Citation]:
        by_id = {c.chunk_id: c for c in result.chunks}
        excerpts = {e["chunk_id"]: e for e in result.details.get("excerpts") or []}
        citations: dict[str, Citation] = {}
        for fact in facts:
            for chunk_id in fact.chunk_ids:
                if len(citations) >= self.max_citations:
                    break
                if chunk_id in by_id:
                    citations.setdefault(chunk_id, _citation(by_id[chunk_id]))
                elif chunk_id in excerpts:
                    e = excerpts[chunk_id]
                    citations.setdefault(
                        chunk_id,
                        Citation(
                            chunk_id=chunk_id,
                            title=e["title"],
                            publication=e.get("source"),
                            published_at=e.get("published_at"),
                        ),
                    )
        return list(citations.values())

    def _abstain(self) -> Answer:
        return Answer(text=ABSTENTION, answerer=self.name)


def _citation(chunk: RankedChunk) -> Citation:
    return Citation(
        chunk_id=chunk.chunk_id, title=chunk.title, publication=chunk.source, published_at=chunk.published_at
    )


_ORDER = re.compile(r"\b(before|after|earlier than|later than|prior to|sooner than)\b", re.IGNORECASE)
_NOT_ORDER = re.compile(
    r"\b(chang\w*|consisten\w*|inconsisten\w*|same|different|differ\w*|similar\w*|portray\w*|shift\w*|"
    r"remain\w*|align\w*|agree\w*|contradict\w*)\b",
    re.IGNORECASE,
)


def asks_about_order(question: str) -> bool:
    """Whether a yes/no question asks which report came first (not whether something changed between them)."""
    return _ORDER.search(question) is not None and _NOT_ORDER.search(question) is None


_YES_NO = re.compile(r"^\s*(does|did|do|is|was|are|were|has|have|had|can|could|would|will|should)\b", re.IGNORECASE)


def _looks_yes_no(question: str) -> bool:
    return _YES_NO.search(question) is not None
