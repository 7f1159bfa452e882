"""The sentences of the retrieved chunks, scored against a question or a part of it: the evidence the answerer without
an LLM quotes, names an entity from, or judges a yes/no question on, when the graph's facts compose no answer.

A sentence's support for a text is the share of the text's content terms it contains (`content_terms`: lower-case,
stop words out), out of at most `saturation` terms: a sentence speaks to one part of a long question. The graph's
own evidence sentences (the sentences its facts were extracted from) count first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel

from graphwire.core.documents import strip_prefix
from graphwire.core.sentences import sentences
from graphwire.retrieval.graph.text import CALENDAR_WORDS, QUESTION_WORDS, content_terms, tokenize
from graphwire.retrieval.models import Citation, RankedChunk, RetrievalResult


class SentenceLimits(BaseModel):
    """How much evidence is read and how much a sentence must share with the question to speak to it."""

    chunks: int = 10  # the top retrieved chunks whose sentences are read
    min_support: float = 0.5  # share of the text's content terms a sentence must contain ...
    saturation: int = 6  # ... counting at most this many (a long question is asked one part at a time)
    min_terms: int = 3  # and at least this many terms
    quote_support: float = 0.67  # a quoted answer's sentences speak to the question more than that
    min_chars: int = 25  # shorter pieces (headings, captions, bylines) are not sentences
    max_chars: int = 600


_ENDED = re.compile(r"[.!?][\"'”’)\]]*\s*$")  # a sentence's end, closing quotes and brackets after it


@dataclass(frozen=True, eq=False)  # one object per sentence read: identity is equality
class Sentence:
    text: str
    chunk: RankedChunk
    rank: int  # the chunk's place in the retrieval, best first
    terms: frozenset[str]
    recorded: bool  # the graph recorded it as the evidence of a fact
    fragment: bool = False  # cut by the chunk's start or end (chunks overlap mid-sentence): never quoted

    def citation(self) -> Citation:
        return Citation.of(self.chunk, quote=None if self.fragment else self.text)


@dataclass(frozen=True)
class Scored:
    sentence: Sentence
    support: float
    shared: int  # content terms shared with the text it was scored against


def question_names(question: str, leave_out: list[str]) -> set[str]:
    """The terms of the question's proper names: its capitalised words, aside from the first word, question and
    calendar words and the `leave_out` spans (such as the outlets it names)."""
    kept = question
    for span in leave_out:
        kept = kept.replace(span, " ")
    tokens = [t for t in tokenize(kept)[1:] if t.capitalised]
    names: set[str] = set().union(*(content_terms(t.text) for t in tokens)) if tokens else set()
    return names - QUESTION_WORDS - CALENDAR_WORDS


class SentencePool:
    """The sentences of a retrieval's top chunks, in retrieval order."""

    def __init__(self, result: RetrievalResult, limits: SentenceLimits) -> None:
        self.limits = limits
        recorded = {e.strip() for fact in result.facts for e in fact.evidence if e}
        self.sentences: list[Sentence] = []
        for rank, chunk in enumerate(result.chunks[: limits.chunks]):
            pieces = sentences(strip_prefix(chunk.text))
            for i, text in enumerate(pieces):
                if limits.min_chars <= len(text) <= limits.max_chars:
                    terms = frozenset(content_terms(text))
                    cut = (i == 0 and text[0].islower()) or (i == len(pieces) - 1 and not _ENDED.search(text))
                    self.sentences.append(Sentence(text, chunk, rank, terms, text in recorded, fragment=cut))

    def names_all(self, names: set[str]) -> bool:
        """Whether the sentences read name every one of `names` (a passage set that never names what the question is
        about cannot answer it)."""
        read: set[str] = set().union(*(s.terms for s in self.sentences))
        return names <= read

    def naming(self, chunk_id: str, names: Iterable[str]) -> Sentence | None:
        """The first whole sentence read of this chunk that writes one of `names` (case folded)."""
        folded = [name.casefold() for name in names if name]
        return next(
            (
                s
                for s in self.sentences
                if s.chunk.chunk_id == chunk_id and not s.fragment and any(n in s.text.casefold() for n in folded)
            ),
            None,
        )

    def scored(self, text: str, sources: set[str] | None = None) -> list[Scored]:
        """Sentences that speak to `text` (enough of its terms), best first: by support, the graph's recorded evidence
        first among equals, then retrieval order. `sources`: only sentences of chunks from these outlets."""
        terms = content_terms(text)
        found = []
        for sentence in self.sentences:
            if sources is not None and sentence.chunk.source not in sources:
                continue
            shared = len(terms & sentence.terms)
            support = shared / min(len(terms), self.limits.saturation) if terms else 0.0
            if shared >= self.limits.min_terms and support >= self.limits.min_support:
                found.append(Scored(sentence, support, shared))
        return sorted(found, key=lambda s: (-s.support, not s.sentence.recorded, s.sentence.rank))
