"""Yes/no judgements for the extractive answerer: whether a question is a yes/no one, whether it asks which of two
outlets' reports came first (before/after, answered from the dates of each outlet's best chunk), and which KEY facts
of the asked relationship support a "Yes" (reported by every named outlet when it names two or more)."""

from __future__ import annotations

import re
from datetime import date

from graphwire.retrieval.graph.relations import asked_relations
from graphwire.retrieval.graph.text import content_terms
from graphwire.retrieval.models import Fact, FactTier, RankedChunk, RetrievalResult
from graphwire.retrieval.question import PublicationMention
from graphwire.schema.lexicon import phrase_pattern
from graphwire.schema.model import GraphSchema

# Cue words are schema lexicon files (schema/lexicon/order_cues.txt, not_order_cues.txt); order cues are
# written with exactly one space between words.
_ORDER = re.compile(rf"\b{phrase_pattern('order_cues', gap=' ')}\b", re.IGNORECASE)
_NOT_ORDER = re.compile(rf"\b{phrase_pattern('not_order_cues')}\b", re.IGNORECASE)


def asks_about_order(question: str) -> bool:
    """Whether a yes/no question asks which report came first (not whether something changed between them)."""
    return _ORDER.search(question) is not None and _NOT_ORDER.search(question) is None


def asks_about_change(question: str) -> bool:
    """Whether a question asks if something changed or stayed consistent between reports (no date or sentence
    overlap says that)."""
    return _NOT_ORDER.search(question) is not None


_YES_NO = re.compile(rf"^\s*{phrase_pattern('yes_no_auxiliaries')}\b", re.IGNORECASE)


def looks_yes_no(question: str) -> bool:
    return _YES_NO.search(question) is not None


def supporting_facts(
    question: str, result: RetrievalResult, outlets: list[PublicationMention], schema: GraphSchema
) -> list[Fact]:
    """The KEY facts with the asked relationship (a link of some other kind proves nothing); when the question names
    two or more outlets ("did A and B both report ..."), only those each outlet has a chunk behind."""
    asked = set(asked_relations(question, schema))
    reported_by = schema.roles.reported_by_type
    key_facts = [f for f in result.facts if f.tier is FactTier.KEY and f.relationship != reported_by]
    supporting = [f for f in key_facts if f.relationship in asked]  # a link of some other kind proves nothing
    if len(outlets) >= 2:  # "did A and B both report ...": each outlet needs a chunk behind the fact
        supporting = [f for f in supporting if _reported_by_each(f, outlets, result)]
    return supporting


def order_verdict(
    question: str, result: RetrievalResult, outlets: list[PublicationMention], order: str
) -> tuple[bool, list[RankedChunk]] | None:
    """Whether the first outlet's best chunk (by the terms of the part of the question about it) was published
    `order` ("before" / "after") the second's, with the two chunks; None when an outlet has no dated chunk or the
    two dates are the same day."""
    picks: list[RankedChunk] = []
    for outlet in outlets:
        terms = content_terms(outlet.clause or question)  # the part of the question about this outlet
        sources = set(outlet.sources or [outlet.name])
        own = [c for c in result.chunks if c.source in sources and c.published_at is not None]
        if not own:
            return None
        picks.append(max(own, key=lambda c: (len(terms & content_terms(c.text)), -result.chunks.index(c))))
    first, second = (p.published_at for p in picks)
    assert isinstance(first, date) and isinstance(second, date)
    if first == second:
        return None
    holds = first < second if order == "before" else first > second
    return holds, picks


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
