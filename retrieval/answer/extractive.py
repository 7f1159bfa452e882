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

Chain search and composition live in `retrieval.answer.chains`, the yes/no and before/after judgements in
`retrieval.answer.judgements`; `ExtractiveAnswerer` routes a question to them.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import dataclass

from graphwire.retrieval.answer.chains import TIER_WEIGHT, best_chain, compose, explained
from graphwire.retrieval.answer.evidence import SentenceAnswers
from graphwire.retrieval.answer.judgements import asks_about_order, looks_yes_no, order_verdict, supporting_facts
from graphwire.retrieval.answer.local import LocalAnswerer
from graphwire.retrieval.answer.subjects import PassageEntities
from graphwire.retrieval.graph.relations import asked_relations
from graphwire.retrieval.models import (
    ABSTENTION,
    Answer,
    AnswerKind,
    Citation,
    Fact,
    FactTier,
    QuestionSummary,
    RetrievalResult,
)
from graphwire.retrieval.question import PublicationMention
from graphwire.schema.model import GraphSchema

__all__ = ["ExtractiveAnswerer", "asked_label", "asked_relations", "asks_about_order"]

# "what is the name of the organization ...": the noun after the preamble
_WH = re.compile(
    r"\b(who|whom|which|what|where)\b(?:\s+(?:is|was)\s+the\s+names?\s+of(?:\s+(?:the|a|an))?)?((?:\s+[\w'-]+){0,4})",
    re.IGNORECASE,
)
# Questions whose answer is an amount, a time or a reason: no relationship in the graph states one.
_NOT_AN_ENTITY = re.compile(r"^(?:how\b|when\b|why\b)", re.IGNORECASE)
_INTERROGATIVE = re.compile(r"\b(?:who|whom|which|what|where|how|when|why)\b", re.IGNORECASE)
# ", and who is its chief executive?": the second part of a two-part question.
_PARTS = re.compile(r",?\s+and\s+(?=(?:who|whom|which|what|where)\b)", re.IGNORECASE)


@dataclass
class _Candidate:
    name: str
    label: str
    score: float = 0.0
    facts: list[Fact] | None = None


def asked_label(question: str, schema: GraphSchema) -> str | None:
    """The node label a wh-question asks for: by the noun after "which"/"what" ("which drone maker"), or by the
    wh-word itself ("who", "where"), from the labels' `question_words` in the schema."""
    match = _WH.search(question)
    if match is None:
        return None
    label_words = schema.label_words
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


class ExtractiveAnswerer(LocalAnswerer):
    name = "extractive"

    def __init__(self, max_citations: int = 3, *, schema: GraphSchema, entities: PassageEntities | None = None) -> None:
        """`schema`: whose question words, cue words, answer phrases and roles to use; `entities`: the graph's
        mentions of the retrieved chunks, for entity answers (retrieval/answer/subjects.py; None: from sentences)."""
        self.max_citations = max_citations
        self.schema = schema
        self.sentences = SentenceAnswers(schema, self.name, entities=entities)

    def answer(self, question: str, result: RetrievalResult) -> Answer:
        """From the graph's facts when they compose an answer, else from the retrieved sentences, else abstain."""
        composed = self._from_facts(question, result)
        if not composed.abstained:
            return composed
        return self.sentences.answer(question, result, asked_label(question, self.schema)) or composed

    def _from_facts(self, question: str, result: RetrievalResult) -> Answer:
        analysis = result.analysis or QuestionSummary()
        if not result.entities or result.abstain_reason:
            return self._abstain()
        if analysis.unknown_publications:
            return (
                self._abstain()
            )  # the question cites an outlet the corpus does not have: its claims cannot be checked
        yes_no = analysis.yes_no or looks_yes_no(question)
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
                chain = best_chain(result.facts, set(previous.names), asked, label, set(), matched, self.schema.roles)
                follow_up = chain is not None
            if chain is None:
                done = explained(result.facts, self.schema.roles)
                chain = best_chain(result.facts, matched, asked, label, done, matched, self.schema.roles)
            if chain is None:
                return self._abstain()
            text = compose(text, previous, chain, follow_up, self.schema.answer_phrases)
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
        roles = self.schema.roles
        publisher = roles.publisher_label
        for fact in facts:
            relevant = fact.relationship in asked
            if not relevant and (fact.tier is not FactTier.BRIDGE or fact.relationship == roles.reported_by_type):
                continue
            ends = ((fact.subject, fact.subject_label, fact.object), (fact.object, fact.object_label, fact.subject))
            for name, node_label, other in ends:
                if name in matched or (label and node_label != label) or (not label and node_label == publisher):
                    continue
                cand = found.setdefault(name, _Candidate(name, node_label, 0.0, []))
                weight = TIER_WEIGHT[fact.tier] * (2.0 if relevant else 1.0)
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
        supporting = supporting_facts(question, result, outlets, self.schema)
        if supporting:
            return Answer(
                text="Yes", answerer=self.name, kind=AnswerKind.JUDGEMENT, citations=self._cite(supporting, result)
            )
        return self._abstain()

    def _temporal(
        self, question: str, result: RetrievalResult, outlets: list[PublicationMention], order: str
    ) -> Answer:
        verdict = order_verdict(question, result, outlets, order)
        if verdict is None:
            return self._abstain()
        holds, picks = verdict
        citations = [Citation.of(c) for c in picks]
        return Answer(text="Yes" if holds else "No", answerer=self.name, kind=AnswerKind.JUDGEMENT, citations=citations)

    # helpers --------------------------------------------------------------------------------------------------
    def _cite(self, facts: list[Fact], result: RetrievalResult) -> list[Citation]:
        by_id = {c.chunk_id: c for c in result.chunks}
        excerpts = {e.chunk_id: e for e in result.excerpts}
        citations: dict[str, Citation] = {}
        for fact in facts:
            for i, chunk_id in enumerate(fact.chunk_ids):
                if len(citations) >= self.max_citations:
                    break
                evidence = fact.evidence_at(i) or None  # an empty one quotes nothing
                if chunk_id in by_id:
                    citations.setdefault(chunk_id, Citation.of(by_id[chunk_id], quote=evidence))
                elif chunk_id in excerpts:
                    citations.setdefault(chunk_id, Citation.of(excerpts[chunk_id], quote=evidence))
        return list(citations.values())

    def _abstain(self) -> Answer:
        return Answer(text=ABSTENTION, answerer=self.name)
