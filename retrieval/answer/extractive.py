"""The answerer that needs no LLM: composes a short answer from the retrieved facts and chunks, or abstains.

- who / which / what / where questions that ask about relationships ("the CEO of the company that acquired X"): the
  entity at the end of a chain of facts that starts at a question entity and whose relationship types cover every
  relation the question asks about (each as often as the question chains it); several entities tied at the end of
  the same last hop are listed ("wire fraud and money laundering"); no such chain: abstain;
- multi-part questions ("which company ..., and who is its chief executive?"): each part in turn, a part that names
  no question entity starting from the previous part's answer; composed as "Vantor Dynamics, run by Greta Holm";
- wh-questions with no relation word: an entity that joins two question entities through BRIDGE facts;
- how much / how many / when / why: abstain (the graph holds relationships, not amounts or reasons);
- yes/no questions about two named outlets and before/after: compares the dates of each outlet's best chunk;
- other yes/no questions: "Yes" when a KEY fact with the asked relationship joins the question's entities (and, when
  the question names two or more outlets without a before/after, each outlet has a chunk supporting it);
- everything else, too little evidence, or a question citing an outlet the graph does not have: exactly
  "Insufficient information." (never a guess).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from datetime import date

from core.schema import configured_schema
from retrieval.graph.relations import asked_relations
from retrieval.graph.text import content_terms
from retrieval.models import (
    ABSTENTION,
    Answer,
    Citation,
    Fact,
    FactTier,
    QuestionSummary,
    RankedChunk,
    RetrievalResult,
)
from retrieval.question import PublicationMention
from schema.model import GraphSchema

_WH = re.compile(r"\b(who|whom|which|what|where)\b((?:\s+[\w'-]+){0,3})", re.IGNORECASE)
# Questions whose answer is an amount, a time or a reason: no relationship in the graph states one.
_NOT_AN_ENTITY = re.compile(r"^(?:how\b|when\b|why\b)", re.IGNORECASE)
_INTERROGATIVE = re.compile(r"\b(?:who|whom|which|what|where|how|when|why)\b", re.IGNORECASE)
# ", and who is its chief executive?": the second part of a two-part question.
_PARTS = re.compile(r",?\s+and\s+(?=(?:who|whom|which|what|where)\b)", re.IGNORECASE)
_MAX_CHAIN = 4
_MAX_PATHS = 20_000
_TIER_WEIGHT = {FactTier.KEY: 3.0, FactTier.BRIDGE: 2.5, FactTier.DIRECT: 1.0}


@dataclass
class _Candidate:
    name: str
    label: str
    score: float = 0.0
    facts: list[Fact] | None = None


def asked_label(question: str, schema: GraphSchema | None = None) -> str | None:
    """The node label a wh-question asks for: by the noun after "which"/"what" ("which drone maker"), or by the
    wh-word itself ("who", "where"), from the labels' `question_words` in the schema (default: the configured one)."""
    match = _WH.search(question)
    if match is None:
        return None
    label_words = (schema or configured_schema()).label_words
    wh, nouns = match.group(1).lower(), (match.group(2) or "").lower().split()
    if wh in ("which", "what"):
        for noun in nouns:  # "which drone maker", "which other investment firm"
            for label, words in label_words.items():
                if any(noun.startswith(w) for w in words):
                    return label
        return None
    return next((label for label, words in label_words.items() if wh in words), None)  # who, whom, where


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

    def __init__(self, max_citations: int = 3, schema: GraphSchema | None = None) -> None:
        """`schema`: whose question words, cue words and answer phrases to use (default: the configured one)."""
        self.max_citations = max_citations
        self.schema = schema or configured_schema()

    def answer(self, question: str, result: RetrievalResult) -> Answer:
        analysis = result.analysis or QuestionSummary()
        if not result.entities or result.abstain_reason:
            return self._abstain()
        if analysis.unknown_publications:
            return (
                self._abstain()
            )  # the question cites an outlet the corpus does not have: its claims cannot be checked
        yes_no = analysis.yes_no or _looks_yes_no(question)
        if yes_no:
            return self._yes_no(question, result)
        return self._wh(question, result)

    # who / which / what ---------------------------------------------------------------------------------------
    def _wh(self, question: str, result: RetrievalResult) -> Answer:
        first = _INTERROGATIVE.search(question)
        if first is None or _NOT_AN_ENTITY.match(question[first.start() :]):
            return self._abstain()
        parts = [p for p in _PARTS.split(question) if p.strip()]
        matched = {e.name for e in result.entities}
        if len(parts) == 1 and not asked_relations(question, self.schema):
            return self._joining(question, result, matched)
        text, cited, previous = "", [], None
        for part in parts:
            asked, label = asked_relations(part, self.schema), asked_label(part, self.schema)
            chain, follow_up = None, False
            if previous is not None and not any(e.mention.lower() in part.lower() for e in result.entities):
                # "who is its chief executive?": from the previous answer first
                chain = _best_chain(result.facts, set(previous.names), asked, label, set(), matched)
                follow_up = chain is not None
            if chain is None:
                chain = _best_chain(result.facts, matched, asked, label, _explained(result.facts), matched)
            if chain is None:
                return self._abstain()
            text = _compose(text, previous, chain, follow_up, self.schema.answer_phrases)
            cited.extend(chain.answer_facts)
            previous = chain
        return Answer(text=text, answerer=self.name, citations=self._cite(cited, result))

    def _joining(self, question: str, result: RetrievalResult, matched: set[str]) -> Answer:
        """No relation word: only an entity that joins two question entities (BRIDGE facts) can be the answer."""
        candidates = self._candidates(result.facts, matched, {}, asked_label(question, self.schema))
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
        analysis = result.analysis or QuestionSummary()
        outlets, order = analysis.outlets, analysis.order
        if len(outlets) >= 2 and order is not None:
            if not asks_about_order(question):
                return self._abstain()  # "was there a change after ...": the dates alone do not answer it
            return self._temporal(question, result, outlets[:2], order)
        asked = set(asked_relations(question, self.schema))
        key_facts = [f for f in result.facts if f.tier is FactTier.KEY and f.relationship != "REPORTED_BY"]
        supporting = [f for f in key_facts if f.relationship in asked]  # a link of some other kind proves nothing
        if len(outlets) >= 2:  # "did A and B both report ...": each outlet needs a chunk behind the fact
            supporting = [f for f in supporting if _reported_by_each(f, outlets, result)]
        if supporting:
            return Answer(text="Yes", answerer=self.name, citations=self._cite(supporting, result))
        return self._abstain()

    def _temporal(
        self, question: str, result: RetrievalResult, outlets: list[PublicationMention], order: str
    ) -> Answer:
        picks: list[RankedChunk] = []
        for outlet in outlets:
            terms = content_terms(outlet.clause or question)  # the part of the question about this outlet
            sources = set(outlet.sources or [outlet.name])
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
        excerpts = {e.chunk_id: e for e in result.excerpts}
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
                        Citation(chunk_id=chunk_id, title=e.title, publication=e.source, published_at=e.published_at),
                    )
        return list(citations.values())

    def _abstain(self) -> Answer:
        return Answer(text=ABSTENTION, answerer=self.name)


# chains ------------------------------------------------------------------------------------------------------------
@dataclass
class _Chain:
    """The answer a chain of facts reaches: its name(s), and the facts from the anchors to it."""

    names: list[str]
    facts: list[Fact] = field(default_factory=list)
    last: Fact | None = None  # the hop into the answer (for composing a follow-up)
    answer_facts: list[Fact] = field(default_factory=list)  # the hops into the answer(s): what an answer cites


def _explained(facts: list[Fact]) -> set[str]:
    """Relationship types already stated between two question entities ("Skylark Aero, the maker of the Kestrel")."""
    return {f.relationship for f in facts if f.tier is FactTier.KEY and f.relationship != "REPORTED_BY"}


def _paths(facts: list[Fact], starts: set[str], types: set[str]) -> list[tuple[str, str, tuple[Fact, ...]]]:
    """Every simple path (start, end, facts) of up to _MAX_CHAIN facts of the given types, walked both ways."""
    adjacency: dict[str, list[tuple[Fact, str]]] = defaultdict(list)
    for fact in facts:
        if fact.relationship in types and fact.subject != fact.object:
            adjacency[fact.subject].append((fact, fact.object))
            adjacency[fact.object].append((fact, fact.subject))
    paths: list[tuple[str, str, tuple[Fact, ...]]] = []
    stack: list[tuple[str, str, tuple[Fact, ...], frozenset[str]]] = [(s, s, (), frozenset({s})) for s in starts]
    while stack and len(paths) < _MAX_PATHS:
        start, node, walked, visited = stack.pop()
        if len(walked) >= _MAX_CHAIN:
            continue
        for fact, neighbour in adjacency[node]:
            if neighbour in visited:
                continue
            path = (*walked, fact)
            paths.append((start, neighbour, path))
            stack.append((start, neighbour, path, visited | {neighbour}))
    return paths


def _node_labels(facts: list[Fact]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for fact in facts:
        labels.setdefault(fact.subject, fact.subject_label)
        labels.setdefault(fact.object, fact.object_label)
    return labels


def _best_chain(
    facts: list[Fact],
    anchors: set[str],
    asked: dict[str, int],
    label: str | None,
    explained: set[str],
    excluded: set[str],
) -> _Chain | None:
    """The entity whose chains from the anchors cover every asked relationship type; ties at the end of the same last
    hop are listed; any other tie, or no covering chain, is None."""
    need = set(asked) - {"REPORTED_BY"}
    if not need:
        return None
    labels = _node_labels(facts)
    per_end: dict[str, dict[str, tuple[Fact, ...]]] = defaultdict(dict)  # end -> anchor -> best path
    for start, end, path in _paths(facts, anchors, need):
        if end in excluded or end in anchors:
            continue
        node_label = labels.get(end)
        if (label and node_label != label) or (not label and node_label == "Publication"):
            continue
        best = per_end[end].get(start)
        if best is None or _path_key(path, need, asked) < _path_key(best, need, asked):
            per_end[end][start] = path
    ranked: list[tuple[tuple[float, ...], str, list[tuple[Fact, ...]]]] = []
    for end, by_anchor in per_end.items():
        chosen = list(by_anchor.values())
        covered = explained.union(*({f.relationship for f in p} for p in chosen))
        if not need <= covered:
            continue  # some asked relation has no supporting fact on the way to this entity
        counts: Counter[str] = Counter()
        for p in chosen:
            counts |= Counter(f.relationship for f in p)
        mismatch = sum(abs(min(asked[t], 2) - min(counts[t], 2)) for t in need if counts[t])
        length = max(len(p) for p in chosen)
        tiers = sum(_TIER_WEIGHT[f.tier] for p in chosen for f in p)
        ranked.append(((-len(chosen), mismatch, length, -tiers), end, chosen))
    if not ranked:
        return None
    ranked.sort(key=lambda item: (item[0], item[1]))
    top = [item for item in ranked if item[0] == ranked[0][0]]
    names = [end for _, end, _ in top]
    if len(top) > 1 and not _stated_together(names, [p[-1] for _, _, chosen in top for p in chosen]):
        return None  # a tie is an answer only when one sentence gives them all ("charged with A and B")
    names = _in_evidence_order(names, [p[-1] for _, _, chosen in top for p in chosen])
    first_path = top[0][2][0]
    all_facts: list[Fact] = []
    for fact in (f for _, _, chosen in top for p in chosen for f in p):
        if not any(fact is kept for kept in all_facts):
            all_facts.append(fact)
    into = [p[-1] for _, _, chosen in top for p in chosen]
    return _Chain(names=names, facts=all_facts, last=first_path[-1], answer_facts=into)


def _path_key(path: tuple[Fact, ...], need: set[str], asked: dict[str, int]) -> tuple[int, int, int]:
    types = Counter(f.relationship for f in path)
    mismatch = sum(abs(min(asked[t], 2) - min(types[t], 2)) for t in need if types[t])
    return (-len(need & set(types)), mismatch, len(path))


def _stated_together(names: list[str], facts: list[Fact]) -> bool:
    return any(all(name.lower() in sentence.lower() for name in names) for f in facts for sentence in f.evidence)


def _in_evidence_order(names: list[str], facts: list[Fact]) -> list[str]:
    """Names in the order the evidence sentence gives them ("wire fraud and money laundering"), else by name."""
    text = " ".join(e for f in facts for e in f.evidence).lower()

    def position(name: str) -> tuple[int, str]:
        found = text.find(name.lower())
        return (found if found >= 0 else len(text) + 1, name)

    return sorted(dict.fromkeys(names), key=position)


def _compose(
    text: str, previous: _Chain | None, chain: _Chain, follow_up: bool, phrases: dict[str, tuple[str, str]]
) -> str:
    """The first part's answer as is; a follow-up joined by its relationship to the previous answer."""
    name = " and ".join(chain.names)
    if previous is None:
        return name
    last = chain.last
    if follow_up and last is not None and len(chain.facts) == 1 and last.relationship in phrases:
        as_subject, as_object = phrases[last.relationship]
        phrase = as_subject if last.subject in previous.names else as_object
        return f"{text}, {phrase} {name}"
    return f"{text}; {name}"


def _chunk_sources(result: RetrievalResult) -> dict[str, str | None]:
    sources: dict[str, str | None] = {c.chunk_id: c.source for c in result.chunks}
    for e in result.excerpts:
        sources.setdefault(e.chunk_id, e.source)
    return sources


def _reported_by_each(fact: Fact, outlets: list[PublicationMention], result: RetrievalResult) -> bool:
    """Whether every named outlet has a chunk supporting the fact (chunks of unknown source prove nothing)."""
    sources = _chunk_sources(result)
    fact_sources = {sources.get(chunk_id) for chunk_id in fact.chunk_ids}
    return all(fact_sources & set(o.sources or [o.name]) for o in outlets)


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
