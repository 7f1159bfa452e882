"""Answer checking: each sentence of an answer mapped to the evidence sentences it rests on, or flagged.

Offline and deterministic. The evidence is what the answerer was given, as sentences: the retrieved chunks (cited
chunks first, each headed by a line of its title, outlet and date, which the LLM's prompt shows too), the facts'
excerpts and evidence sentences, and each fact itself with the schema's words for its relationship ("Ada Park CEO OF
Lumen Labs: ceo, chief executive, boss, runs, run by, ...": the relationship's question cues and answer phrases).

A sentence's claims are three kinds of item:

- hard: the names it mentions (spaCy's named entities, the graph entities it names, capitalised words inside it), its
  numbers (40, 310, 2021; "40,000" is 40000) and its dates (month and weekday names; an ISO date in the evidence also
  gives its month and day), each of which some evidence sentence must hold word for word;
- soft: its other content words (not graph_stopwords.txt), compared on a crude stem (suffix stripped, first five
  letters), so "appointed ... chief executive" and "named ... chief executive" share most of theirs; a schema word for
  a relationship counts as the relationship (`check_vocabulary`: "chief executive" in the answer, "CEO" in the
  evidence).

Evidence sentences are chosen greedily (up to `MAX_SUPPORT`): first the one covering most (hard items count twice),
then others only where they hold more of its names, numbers or dates, or more of its words beside one of its names (a
claim joining two facts rests on two sentences). The score is the covered share (hard items weighted twice); a
sentence is supported when no hard item is missing and at least `MIN_WORDS` of its soft items are covered (one
uncovered word is always allowed: "Greta Holm heads Vantor Dynamics" makes no claim of its own with "heads"). The
answer's score is the mean of its sentences'.

Short answers: the abstention claims nothing (no sentences, score 1); a sentence that opens with yes or no is checked
as the question's claim (the question's items with the sentence's own); a sentence of names alone (the bare entity
answer) must be in a cited chunk when the answer cites any.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from typing import Any

from graphwire.core.nlp import ner_docs
from graphwire.core.sentences import SENTENCE_END
from graphwire.retrieval.answer.check_result import AnswerCheck, SentenceCheck
from graphwire.retrieval.answer.check_vocabulary import RelationVocabulary
from graphwire.retrieval.models import ABSTENTION, Answer, RetrievalResult
from graphwire.schema.lexicon import word_list

MAX_SUPPORT = 3  # evidence sentences one answer sentence may rest on
MIN_WORDS = 0.5  # share of a sentence's content words its evidence must hold
HARD_WEIGHT = 2.0  # a name, number or date counts this many content words in the score
STEM_CHARS = 5
# spaCy entity labels that are quantities (checked as numbers and dates instead)
_QUANTITY_LABELS = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"})
_YES_NO = frozenset({"yes", "no"})

_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[^\W\d_]+")
_CITATION = re.compile(r"\s*\[\d{1,3}\]")
_ANSWER_END = re.compile(r"[.!?](?:\s*\[\d{1,3}\])*(?=\s+\S)")  # markers after the stop stay with their sentence
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_POSSESSIVE = re.compile(r"'s\b")
_SUFFIXES = ("ing", "ies", "ed", "es", "s")
_ABBREVIATION = re.compile(r"(?<![\w.])[A-Z][a-z]{0,2}\.$")  # "Dr.", "St.": no sentence ends there


@cache
def _calendar() -> dict[str, str]:
    """Month and weekday names (full and abbreviated, lower case) -> one date item per month or weekday."""
    names = {m.lower(): f"month:{i}" for i, m in enumerate(calendar.month_name) if m}
    names.update({m.lower(): f"month:{i}" for i, m in enumerate(calendar.month_abbr) if m})
    names.update({d.lower(): f"day:{i}" for i, d in enumerate(calendar.day_name)})
    return names


@dataclass(frozen=True)
class Items:
    hard: frozenset[str]  # "name:ada", "num:40", "month:3"
    soft: frozenset[str]  # stems of the other content words

    def __or__(self, other: Items) -> Items:
        return Items(self.hard | other.hard, self.soft | other.soft)


@dataclass
class Evidence:
    chunk_id: str
    text: str
    cited: bool
    items: Items = field(default_factory=lambda: Items(frozenset(), frozenset()))


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:STEM_CHARS]


def _number(token: str) -> str:
    value = token.replace(",", "")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value.lstrip("0") or "0"


def _normal(text: str) -> str:
    return _POSSESSIVE.sub("", text.translate(_QUOTES))


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(_normal(text))


def _relations(text: str, vocabulary: RelationVocabulary | None) -> list[tuple[str, int, int]]:
    return vocabulary.find(text) if vocabulary is not None else []


def evidence_items(text: str, vocabulary: RelationVocabulary | None = None) -> Items:
    """Everything an evidence sentence holds: every word as a possible name, its numbers and dates, its stems."""
    hard: set[str] = set()
    soft: set[str] = set()
    months = _calendar()
    for token in _tokens(text):
        if token[0].isdigit():
            hard.add("num:" + _number(token))
            continue
        lower = token.lower()
        hard.add("name:" + lower)
        if token[0].isupper() and lower in months:
            hard.add(months[lower])
        soft.add(stem(lower))
    for _, month, day in _ISO_DATE.findall(text):
        hard.update({f"month:{int(month)}", "num:" + _number(day)})
    soft.update("rel:" + rel_type for rel_type, _, _ in _relations(_normal(text), vocabulary))
    return Items(frozenset(hard), frozenset(soft))


class Claims:
    """The items of answer sentences: names from spaCy's NER (loaded once), the graph's names and capitals."""

    def __init__(self, known_names: Iterable[str] = (), vocabulary: RelationVocabulary | None = None) -> None:
        self.vocabulary = vocabulary
        names = sorted({n for n in known_names if n.strip()}, key=len, reverse=True)
        self._known = [re.compile(rf"(?<!\w){re.escape(n)}(?!\w)", re.IGNORECASE) for n in names]

    def items(self, sentence: str) -> Items:
        text = _normal(_CITATION.sub("", sentence))
        stopwords, months = word_list("graph_stopwords"), _calendar()
        relations = _relations(text, self.vocabulary)
        names = {w.lower() for w in _entity_words(text)}
        for pattern in self._known:
            if match := pattern.search(text):
                names.update(t.lower() for t in _tokens(match.group(0)) if not t[0].isdigit())
        hard: set[str] = set()
        soft: set[str] = {"rel:" + rel_type for rel_type, _, _ in relations}
        for i, match in enumerate(_TOKEN.finditer(text)):
            token, lower = match.group(0), match.group(0).lower()
            if token[0].isdigit():
                hard.add("num:" + _number(token))
            elif token[0].isupper() and lower in months:
                hard.add(months[lower])
            elif lower in stopwords or lower in _YES_NO:
                continue
            elif lower in names or (i > 0 and token[0].isupper() and not (len(token) > 1 and token.isupper())):
                hard.add("name:" + lower)  # acronyms (CEO) are words; a capital inside the sentence is a name
            elif len(lower) > 1 and not any(start <= match.start() < end for _, start, end in relations):
                soft.add(stem(lower))  # a relationship's words count once, as the relationship
        return Items(frozenset(hard), frozenset(soft))


def _entity_words(text: str) -> list[str]:
    """The words of spaCy's named entities in `text` (quantities aside); all-capital words are left as words."""
    [doc] = ner_docs([text])
    return [
        token
        for ent in doc.ents
        if ent.label_ not in _QUANTITY_LABELS
        for token in _tokens(ent.text)
        if not token[0].isdigit() and not (len(token) > 1 and token.isupper())
    ]


def answer_sentences(text: str) -> list[str]:
    """The answer's sentences as written; a fragment without a word of its own ("Dr.") joins the next one."""
    pieces, start = [], 0
    for match in _ANSWER_END.finditer(text):
        pieces.append(text[start : match.end()].strip())
        start = match.end()
    pieces.append(text[start:].strip())
    sentences: list[str] = []
    carry = ""
    for piece in filter(None, pieces):
        joined = f"{carry} {piece}".strip()
        if _ABBREVIATION.search(joined) and piece is not pieces[-1]:
            carry = joined
            continue
        sentences.append(joined)
        carry = ""
    if carry:
        sentences.append(carry)
    return sentences


def evidence_of(
    result: RetrievalResult, cited: Iterable[str] = (), vocabulary: RelationVocabulary | None = None
) -> list[Evidence]:
    """The evidence sentences of `result`, those of the cited chunks first, each sentence once; `vocabulary`: the
    schema's words for each relationship, added to each fact's own line."""
    cited_ids = list(dict.fromkeys(cited))
    order = {chunk_id: i for i, chunk_id in enumerate(cited_ids)}
    unique: dict[str, Any] = {}
    for chunk in result.chunks:
        unique.setdefault(chunk.chunk_id, chunk)
    pool: dict[str, Evidence] = {}

    def add(chunk_id: str, text: str) -> None:
        for sentence in SENTENCE_END.split(text):
            sentence = " ".join(sentence.split())
            if sentence and sentence not in pool:
                pool[sentence] = Evidence(chunk_id, sentence, chunk_id in order, evidence_items(sentence, vocabulary))

    for chunk in sorted(unique.values(), key=lambda c: order.get(c.chunk_id, len(order))):
        add(chunk.chunk_id, _header(chunk.title, chunk.source, chunk.published_at))
        add(chunk.chunk_id, chunk.text)
    for excerpt in result.excerpts:
        add(excerpt.chunk_id, excerpt.text)
    for fact in result.facts:
        chunk_id = fact.chunk_ids[0] if fact.chunk_ids else ""
        words = vocabulary.render(fact.relationship) if vocabulary is not None else ""
        line = f"{fact.subject} {fact.relationship.replace('_', ' ')} {fact.object}" + (f": {words}" if words else "")
        add(chunk_id, line)
        for i, sentence in enumerate(fact.evidence):
            add(fact.chunk_ids[i] if i < len(fact.chunk_ids) else chunk_id, sentence)
    return list(pool.values())


def _header(title: str, source: str | None, published: date | None) -> str:
    """The line the LLM's prompt heads an excerpt with, the date also spelled out (so "March 2, 2026" matches)."""
    when = f"{published.isoformat()} {published:%B} {published.day} {published.year}" if published else ""
    return " | ".join(part for part in (title, source or "", when) if part) + "\n"


def _support(claim: Items, pool: list[Evidence]) -> tuple[list[Evidence], Items]:
    """Up to MAX_SUPPORT sentences covering most of `claim`, cited ones first on ties; and what they cover."""
    hard: set[str] = set()
    soft: set[str] = set()
    chosen: list[Evidence] = []
    names = {item for item in claim.hard if item.startswith("name:")}
    while len(chosen) < MAX_SUPPORT:
        best, best_gain = None, 0.0
        for e in pool:
            new_hard = len((claim.hard & e.items.hard) - hard)
            new_soft = len((claim.soft & e.items.soft) - soft)
            if chosen and not new_hard and not (new_soft and names & e.items.hard):
                continue  # a further sentence brings a name, number or date, or words about one of the claim's names
            gain = HARD_WEIGHT * new_hard + new_soft
            if gain > best_gain or (gain == best_gain and best is not None and e.cited and not best.cited):
                best, best_gain = e, gain
        if best is None:
            break
        chosen.append(best)
        hard |= claim.hard & best.items.hard
        soft |= claim.soft & best.items.soft
    return chosen, Items(frozenset(hard), frozenset(soft))


def check_sentence(sentence: str, claim: Items, pool: list[Evidence], wording: str = "") -> SentenceCheck:
    """`claim` (the items of `sentence`, and of `wording` too when it took the question's) against `pool`."""
    chosen, covered = _support(claim, pool)
    total = HARD_WEIGHT * len(claim.hard) + len(claim.soft)
    score = (HARD_WEIGHT * len(covered.hard) + len(covered.soft)) / total if total else 1.0  # nothing to check
    uncovered = len(claim.soft) - len(covered.soft)
    words = len(covered.soft) / len(claim.soft) if uncovered > 1 else 1.0
    missing = sorted(_surface(f"{sentence} {wording}", item) for item in claim.hard - covered.hard)
    supported = not missing and words >= MIN_WORDS
    chunk_ids = list(dict.fromkeys(e.chunk_id for e in chosen))
    return SentenceCheck(text=sentence, score=round(score, 3), supported=supported, chunk_ids=chunk_ids,
                         evidence=[e.text.strip() for e in chosen], missing=missing)  # fmt: skip


def _surface(sentence: str, item: str) -> str:
    """A missing item as the sentence writes it ("Orvella", "14", "March")."""
    kind, value = item.split(":", 1)
    if kind == "month":
        return calendar.month_name[int(value)]
    if kind == "day":
        return calendar.day_name[int(value)]
    words = {t.lower(): t for t in _tokens(sentence)}
    return words.get(value, value)


def _question_items(claims: Claims, question: str) -> Items:
    items = claims.items(question)
    opening = {stem(w) for w in word_list("question_opening_words") | word_list("yes_no_auxiliaries")}
    return Items(items.hard, items.soft - opening)


def check_answer(
    question: str, answer: Answer, result: RetrievalResult, vocabulary: RelationVocabulary | None = None
) -> AnswerCheck:
    """Each sentence of `answer` against the evidence of `result` (see the module's docstring); `vocabulary`: the
    schema's words for each relationship (`RelationVocabulary.of(schema)`)."""
    if answer.text.strip() == ABSTENTION:
        return AnswerCheck(sentences=[], score=1.0, unsupported=0)
    cited = [c.chunk_id for c in answer.citations]
    pool = evidence_of(result, cited, vocabulary)
    cited_pool = [e for e in pool if e.cited]
    names = [e.name for e in result.entities] + [n for f in result.facts for n in (f.subject, f.object)]
    claims = Claims(names, vocabulary)
    checks = []
    for sentence in answer_sentences(answer.text):
        claim = claims.items(sentence)
        first = _tokens(_CITATION.sub("", sentence))[:1]
        wording = question if first and first[0].lower() in _YES_NO else ""
        if wording:
            claim = claim | _question_items(claims, question)
        bare = not claim.soft and not any(item.startswith(("num:", "month:", "day:")) for item in claim.hard)
        checks.append(check_sentence(sentence, claim, cited_pool if bare and cited_pool else pool, wording))
    score = sum(c.score for c in checks) / len(checks) if checks else 1.0
    return AnswerCheck(sentences=checks, score=round(score, 3), unsupported=sum(not c.supported for c in checks))
