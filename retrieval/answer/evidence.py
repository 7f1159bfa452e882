"""Answers from the retrieved sentences, for questions the graph's facts do not compose an answer to:

- yes/no questions about two reports (two named outlets, or one outlet named twice): a sentence from each side's
  chunks, of two different articles, that speaks to the part of the question about it; before/after questions
  compare the two chunks' publication dates, others are "Yes" when both sides have such a sentence (never a yes or no
  without a sentence on each side, never from the question's form; not whether reports changed, agree or differ);
- questions asking for an entity ("who", "which company"): first, when the question names the outlets whose reports
  describe it, the graph's answer: the entity of the asked label that the retrieved chunks of the most documents
  mention (then the best placed: the sum of 1 / rank; then the most mentioned), read from the graph's MENTIONS
  (`subjects.py`: extraction has already resolved a surname or an acronym to its entity); it must not be named by the
  question, must be mentioned by two or more documents and by the chunks of two of the named outlets (of the one it
  names); a tie is no answer. A question that names no outlet asks a relation of what it names ("who is the chief
  executive of X?"), which only the facts answer. Otherwise the entity of the asked type (spaCy's types onto the
  schema's labels) that the retrieved sentences name most, weighted by how much each naming sentence speaks to the
  question; it must not be named by the question, must be named by a sentence that speaks to it, in two or more
  chunks and, when the question names outlets, in the chunks of two of them (of the one it names); a tie is no answer;
- other questions, and those the rules above leave unanswered: the one to three sentences that speak to the question
  most and name something it names, each cited, as a quote (for an amount, only sentences with a number that is not
  a year; for a time, with a number); for a yes/no question about two reports, each side's sentence (never a yes or
  no). A sentence cut by its chunk's start or end is never quoted.

Every answer cites, in each citation's `quote`, the sentence of the chunk it rests on.

Nothing is answered when the passages never name one of the question's proper names, or it names an outlet the corpus
does not have.

Everything else gets None, and the caller abstains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphwire.core.names import POSSESSIVE, normalise_name
from graphwire.core.nlp import ner_docs
from graphwire.retrieval.answer.judgements import asks_about_change, asks_about_order, looks_yes_no
from graphwire.retrieval.answer.sentences import Scored, Sentence, SentenceLimits, SentencePool, question_names
from graphwire.retrieval.answer.subjects import Mentioned, PassageEntities
from graphwire.retrieval.models import Answer, AnswerKind, Citation, QuestionSummary, RankedChunk, RetrievalResult
from graphwire.retrieval.question import PublicationMention
from graphwire.schema.lexicon import phrase_pattern
from graphwire.schema.model import GraphSchema

_NOT_AN_ENTITY = re.compile(r"^\s*(?:how|when|why)\b", re.IGNORECASE)
_ASKS_AN_AMOUNT = re.compile(rf"^\s*{phrase_pattern('number_questions')}\b", re.IGNORECASE)
_ASKS_A_TIME = re.compile(rf"^\s*{phrase_pattern('time_questions')}\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d")
_AMOUNT = re.compile(r"(?<![\d.,])(?!(?:1[89]|20)\d\d\b)\d[\d.,]*")  # a number that is not a year
MAX_QUOTES = 3
OUTLETS_NEEDED = 2  # an entity answer is named in the passages of this many of the outlets the question names (or all)
MENTION_WEIGHT = 0.2  # a sentence naming a candidate counts this much beyond its support for the question


@dataclass
class _Candidate:
    name: str
    support: dict[Sentence, float] = field(default_factory=dict)  # the sentences naming it, with their support

    @property
    def score(self) -> float:
        return sum(self.support.values())

    @property
    def chunks(self) -> set[str]:
        return {s.chunk.chunk_id for s in self.support}

    @property
    def sources(self) -> set[str]:
        return {s.chunk.source for s in self.support if s.chunk.source}


@dataclass
class _Subject:
    """An entity the retrieved chunks mention, as the graph knows it."""

    names: dict[str, int] = field(default_factory=dict)  # the entity names seen for it, with their chunk counts
    chunks: dict[str, RankedChunk] = field(default_factory=dict)  # the chunks mentioning it, by id
    ranks: dict[str, int] = field(default_factory=dict)  # their places in the retrieval, best first from 1
    mentions: int = 0  # how often those chunks mention it

    @property
    def name(self) -> str:
        return min(self.names, key=lambda n: (-self.names[n], -len(n), n))

    @property
    def documents(self) -> set[str]:
        return {c.document_id for c in self.chunks.values()}

    @property
    def sources(self) -> set[str]:
        return {c.source for c in self.chunks.values() if c.source}

    @property
    def score(self) -> float:
        return len(self.documents) + sum(1.0 / r for r in self.ranks.values())

    @property
    def order(self) -> tuple[float, int]:
        """Most documents and best placed first; then the most mentioned (the passages are about it)."""
        return (-self.score, -self.mentions)

    def add(self, entity: Mentioned, chunk: RankedChunk, rank: int) -> None:
        self.mentions += entity.count
        if chunk.chunk_id not in self.chunks:
            self.names[entity.name] = self.names.get(entity.name, 0) + 1
            self.chunks[chunk.chunk_id] = chunk
            self.ranks[chunk.chunk_id] = rank

    def absorb(self, other: _Subject) -> None:
        self.mentions += other.mentions
        for chunk_id, chunk in other.chunks.items():
            if chunk_id not in self.chunks:
                self.chunks[chunk_id], self.ranks[chunk_id] = chunk, other.ranks[chunk_id]


class SentenceAnswers:
    """Entity, judgement and quote answers from a retrieval's sentences (see the module's docstring)."""

    def __init__(
        self,
        schema: GraphSchema,
        name: str,
        limits: SentenceLimits | None = None,
        entities: PassageEntities | None = None,
    ) -> None:
        """`entities`: the graph's mentions of the retrieved chunks (None: entity answers from sentences only)."""
        self.schema, self.name = schema, name
        self.limits = limits or SentenceLimits()
        self.entities = entities

    def answer(self, question: str, result: RetrievalResult, asked_label: str | None) -> Answer | None:
        analysis = result.analysis or QuestionSummary()
        if not result.chunks or analysis.unknown_publications:
            return None  # an outlet the corpus does not have: its claims cannot be checked
        pool = SentencePool(result, self.limits)
        names = question_names(question, [o.mention for o in analysis.outlets])
        if not pool.names_all(names):
            return None  # the passages never name something the question is about
        if analysis.yes_no or looks_yes_no(question):
            return self._judgement(question, pool, analysis) or self._sides_quote(question, pool, analysis, names)
        label = None if asked_label is None or _NOT_AN_ENTITY.match(question) else asked_label
        if label is not None:
            subject = self._subject(question, pool, result.chunks, label, analysis.outlets)
            if subject is not None:
                return subject
        scored = pool.scored(question)
        if not scored:
            return None
        entity = self._entity(question, pool, scored, label, analysis.outlets) if label is not None else None
        return entity or self._quote(self._quotable(question, scored, names))

    def _judgement(self, question: str, pool: SentencePool, analysis: QuestionSummary) -> Answer | None:
        if asks_about_change(question):
            return None  # whether reports agree or changed: overlap cannot tell (bench/judgement_evidence.md)
        picks = judged_sides(question, pool, analysis)
        if picks is None:
            return None
        first, second = picks[0].sentence, picks[1].sentence
        citations = [first.citation(), second.citation()]
        if analysis.order is None or not asks_about_order(question):
            if analysis.order is not None:
                return None  # "was there a change after ...": sentences do not say whether something changed
            return self._make("Yes", AnswerKind.JUDGEMENT, citations)
        day1, day2 = first.chunk.published_at, second.chunk.published_at
        if day1 is None or day2 is None or day1 == day2:
            return None
        holds = day1 < day2 if analysis.order == "before" else day1 > day2
        return self._make("Yes" if holds else "No", AnswerKind.JUDGEMENT, citations)

    def _sides_quote(
        self, question: str, pool: SentencePool, analysis: QuestionSummary, names: set[str]
    ) -> Answer | None:
        """A yes/no question no judgement answers (whether reports agree or changed, or both sides in one article):
        each side's sentence quoted, or the sentences that speak to the whole question when it has no two sides."""
        picks = judged_sides(question, pool, analysis, distinct=False)
        if picks is not None and all(p.support >= self.limits.quote_support and not p.sentence.fragment for p in picks):
            quotes = list(dict.fromkeys(p.sentence for p in picks))
            return self._make(_quoted(quotes), AnswerKind.QUOTE, [s.citation() for s in quotes])
        return self._quote(self._quotable(question, pool.scored(question), names))

    def _subject(
        self,
        question: str,
        pool: SentencePool,
        chunks: list[RankedChunk],
        label: str,
        outlets: list[PublicationMention],
    ) -> Answer | None:
        """The graph's answer to a question that describes an entity by what the outlets it names reported: the
        entity of `label` that the top chunks of the most documents mention."""
        wanted = _sources_of(outlets)
        if self.entities is None or not wanted:
            return None  # "who is the chief executive of X?" asks a relation of X: the facts' to answer
        top = chunks[: self.limits.chunks]
        found = _subjects(question, top, self.entities.of([c.chunk_id for c in top]), label)
        qualified = [s for s in found if len(s.documents) >= 2 and _named_by_enough(s.sources, wanted)]
        ranked = sorted(qualified, key=lambda s: (*s.order, s.name))
        if not ranked or (len(ranked) > 1 and ranked[0].order == ranked[1].order):
            return None
        best = ranked[0]
        cited = sorted(best.chunks, key=lambda chunk_id: best.ranks[chunk_id])[:MAX_QUOTES]
        citations = []
        for chunk_id in cited:  # each with the sentence that names the answer, where one read does
            naming = pool.naming(chunk_id, best.names)
            citations.append(Citation.of(best.chunks[chunk_id], quote=naming.text if naming else None))
        return self._make(best.name, AnswerKind.ENTITY, citations)

    def _entity(
        self, question: str, pool: SentencePool, scored: list[Scored], label: str, outlets: list[PublicationMention]
    ) -> Answer | None:
        found = _candidates(question, pool, scored, label, self.schema)
        wanted = _sources_of(outlets)
        speaking = {s.sentence for s in scored}
        qualified = [
            c
            for c in found.values()
            if len(c.chunks) >= 2 and speaking & c.support.keys() and _named_by_enough(c.sources, wanted)
        ]
        ranked = sorted(qualified, key=lambda c: (-c.score, c.name))
        if not ranked or (len(ranked) > 1 and ranked[0].score == ranked[1].score):
            return None  # nothing, or a tie: not an answer
        best = ranked[0]
        named = sorted(best.support, key=lambda s: (-best.support[s], s.rank))
        citations: dict[str, Citation] = {}
        for sentence in named:  # each chunk's best sentence naming it
            citations.setdefault(sentence.chunk.chunk_id, sentence.citation())
        return self._make(best.name, AnswerKind.ENTITY, list(citations.values())[:MAX_QUOTES])

    def _quotable(self, question: str, scored: list[Scored], names: set[str]) -> list[Scored]:
        """Sentences that may be quoted: speaking to enough of the question, naming something it names (when it
        names anything), and for an amount or a time holding such a number."""
        enough = self.limits.quote_support
        quotable = [
            s
            for s in scored
            if s.support >= enough and not s.sentence.fragment and (not names or s.sentence.terms & names)
        ]
        needed = _AMOUNT if _ASKS_AN_AMOUNT.match(question) else _NUMBER if _ASKS_A_TIME.match(question) else None
        return [s for s in quotable if needed.search(s.sentence.text)] if needed is not None else quotable

    def _quote(self, scored: list[Scored]) -> Answer | None:
        """The best sentences, one per chunk; only sentences naming something the question names, when it names any."""
        if not scored:
            return None
        picked: dict[str, Sentence] = {}
        said: set[str] = set()
        for s in scored:  # one sentence per chunk, each said once (chunks overlap): three ways of saying it beat one
            text = " ".join(s.sentence.text.split()).casefold()
            if s.sentence.chunk.chunk_id in picked or text in said:
                continue
            picked[s.sentence.chunk.chunk_id] = s.sentence
            said.add(text)
            if len(picked) == MAX_QUOTES:
                break
        quotes = list(picked.values())
        return self._make(_quoted(quotes), AnswerKind.QUOTE, [s.citation() for s in quotes])

    def _make(self, text: str, kind: AnswerKind, citations: list[Citation]) -> Answer:
        return Answer(text=text, answerer=self.name, kind=kind, citations=citations)


def _quoted(sentences: list[Sentence]) -> str:
    return " ".join(f'"{s.text}"' for s in sentences)


def _sources_of(outlets: list[PublicationMention]) -> list[set[str]]:
    """The corpus sources of each outlet the question names that the corpus has."""
    return [set(o.sources or [o.name]) for o in outlets if o.in_corpus]


def _named_by_enough(sources: set[str], wanted: list[set[str]]) -> bool:
    """Whether chunks of these sources cover `OUTLETS_NEEDED` of the question's outlets (all, when it names fewer)."""
    return sum(bool(sources & outlet) for outlet in wanted) >= min(len(wanted), OUTLETS_NEEDED)


def judged_sides(
    question: str, pool: SentencePool, analysis: QuestionSummary | None, distinct: bool = True
) -> list[Scored] | None:
    """The sentence that speaks most to each side's part of a yes/no question about two reports, from two different
    articles (from any, when not `distinct`); None when there are not two sides, a side has no such sentence, or
    both rest on one article when they must not."""
    sides = _sides(question, (analysis or QuestionSummary()).outlets)
    if sides is None:
        return None
    first, second = (_best(pool, clause, sources) for clause, sources in sides)
    if first is None or second is None:
        return None
    if distinct and first.sentence.chunk.document_id == second.sentence.chunk.document_id:
        return None
    return [first, second]


def _sides(question: str, outlets: list[PublicationMention]) -> list[tuple[str, set[str]]] | None:
    """The two sides of a yes/no question about two reports: each named outlet's part of the question with its
    sources; when it names one outlet twice ("the Sporting News article ... the Sporting News report ..."), the
    question before and from the second mention, both of that outlet. None when there are not two sides."""
    if len(outlets) >= 2:
        return [(o.clause, set(o.sources or [o.name])) for o in outlets[:2]]
    if len(outlets) == 1:
        outlet = outlets[0]
        second = question.find(outlet.mention, outlet.end)
        if second > 0:
            sources = set(outlet.sources or [outlet.name])
            return [(question[:second], sources), (question[second:], sources)]
    return None


def _best(pool: SentencePool, clause: str, sources: set[str]) -> Scored | None:
    """The sentence of these outlets' chunks that speaks most to this part of the question."""
    scored = pool.scored(clause, sources=sources)
    return scored[0] if scored else None


def _candidates(
    question: str, pool: SentencePool, scored: list[Scored], label: str, schema: GraphSchema
) -> dict[str, _Candidate]:
    """Entities of the asked label named in the chunks that speak to the question (a chunk with a scored sentence),
    that the question does not name, by normalised name; each sentence naming one adds its support plus
    `MENTION_WEIGHT` (what the passages are about counts, not only the sentences worded like the question). A name
    that ends a longer one found ("Bankman-Fried", "Sam Bankman-Fried") counts for the longer one."""
    types = {ner for ner, schema_label in schema.ner_labels.items() if schema_label == label}
    support = {s.sentence: s.support for s in scored}
    read = pool.sentences
    asked = f" {normalise_name(question, drop_suffix=False)} "
    found: dict[str, _Candidate] = {}
    for sentence, doc in zip(read, ner_docs([s.text for s in read]), strict=True):
        for ent in doc.ents:
            key = normalise_name(ent.text)
            if ent.label_ in types and key and f" {key} " not in asked:
                weight = support.get(sentence, 0.0) + MENTION_WEIGHT
                found.setdefault(key, _Candidate(POSSESSIVE.sub("", ent.text).strip())).support[sentence] = weight
    return _merge_parts(found)


def _subjects(question: str, chunks: list[RankedChunk], mentioned: list[list[Mentioned]], label: str) -> list[_Subject]:
    """The entities of `label` these chunks mention that the question does not name, by normalised name (two nodes
    written "OpenAI" and "OpenAi" are one answer); a name that is the last words of exactly one longer one found
    ("Altman", "Sam Altman") counts for the longer one."""
    asked = f" {normalise_name(question, drop_suffix=False)} "
    found: dict[str, _Subject] = {}
    for rank, (chunk, entities) in enumerate(zip(chunks, mentioned, strict=True), start=1):
        for entity in entities:
            key = normalise_name(entity.name)
            if entity.label == label and key and f" {key} " not in asked:
                found.setdefault(key, _Subject()).add(entity, chunk, rank)
    merged: dict[str, _Subject] = {}
    for key in sorted(found, key=lambda k: (-len(k), k)):
        wholes = [k for k in merged if k.endswith(f" {key}")]
        if len(wholes) == 1:
            merged[wholes[0]].absorb(found[key])
        else:
            merged[key] = found[key]
    return list(merged.values())


def _merge_parts(found: dict[str, _Candidate]) -> dict[str, _Candidate]:
    merged: dict[str, _Candidate] = {}
    for key in sorted(found, key=lambda k: (-len(k), k)):
        whole = next((k for k in merged if k.endswith(f" {key}")), None)
        if whole is None:
            merged[key] = found[key]
        else:
            merged[whole].support |= found[key].support
    return merged
