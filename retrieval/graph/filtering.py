"""Stage 4: turn template rows into KEY / BRIDGE / DIRECT facts (deduplicated, ranked, capped) and rank chunks.

Every fact comes from a relationship a template returned; nothing is inferred or rewritten here, so no fact can
appear that is not in the graph.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from graphwire.core.settings import Settings, default_of
from graphwire.retrieval.graph.models import CandidateChunk, RawFact, TemplateOutput
from graphwire.retrieval.graph.text import content_terms
from graphwire.retrieval.models import ChunkRecord, Fact, FactTier, RankedChunk

_TIER_WEIGHT = {FactTier.KEY: 3.0, FactTier.BRIDGE: 2.0, FactTier.DIRECT: 1.0}
_BUCKET = {FactTier.KEY: 0, FactTier.BRIDGE: 1, FactTier.DIRECT: 2}
_CANDIDATE_BUCKET = 3


@dataclass(frozen=True)
class FactCaps:
    key: int = default_of("key_fact_cap")
    bridge: int = default_of("bridge_fact_cap")
    direct: int = default_of("direct_fact_cap")
    excerpts: int = default_of("excerpt_cap")
    chain: int = 15  # asked-type facts one hop past the others (for the answerer; they do not rank chunks)
    excerpt_chars: int = default_of("excerpt_chars")

    @classmethod
    def from_settings(cls, settings: Settings) -> FactCaps:
        return cls(
            key=settings.key_fact_cap,
            bridge=settings.bridge_fact_cap,
            direct=settings.direct_fact_cap,
            excerpts=settings.excerpt_cap,
            excerpt_chars=settings.excerpt_chars,
        )


@lru_cache(maxsize=150_000)
def _terms(text: str) -> frozenset[str]:
    """`content_terms`, cached: chunk texts and evidence sentences come back question after question."""
    return frozenset(content_terms(text))


def prepare_chunk(record: ChunkRecord) -> None:
    """Compute a chunk's terms when the chunk cache reads it, not while a question waits (ChunkCache `prepare`)."""
    _terms(record.text)


def _fact_relevance(raw: RawFact, question_terms: set[str]) -> float:
    """`overlap` of the fact's names, type and evidence; the terms of a joined text are the union of its parts'
    (a space separates them), so each part's terms are cached: hub facts repeat long evidence lists."""
    if not question_terms:
        return 0.0
    found: set[str] = set()
    for part in (raw.subject, raw.relationship.replace("_", " "), raw.object, *raw.evidence):
        found |= question_terms & _terms(part)
    return len(found) / len(question_terms)


def _to_fact(raw: RawFact, tier: FactTier, relevance: float) -> Fact:
    score = _TIER_WEIGHT[tier] + min(raw.named_hits, 3) * 0.2 + relevance - (raw.hops - 1) * 0.5
    return Fact(
        tier=tier,
        subject=raw.subject,
        subject_label=raw.subject_label,
        relationship=raw.relationship,
        object=raw.object,
        object_label=raw.object_label,
        chunk_ids=raw.chunk_ids,
        evidence=raw.evidence,
        score=round(score, 4),
    )


def select_facts(out: TemplateOutput, question: str, caps: FactCaps) -> list[Fact]:
    """KEY, then BRIDGE, then DIRECT; each deduplicated against the tiers before it, ranked, and capped."""
    terms = content_terms(question)
    seen: set[tuple[str, str, str]] = set()
    facts: list[Fact] = []

    def take(raws: list[RawFact], tier: FactTier, cap: int) -> None:
        ranked = sorted(
            ((raw, _fact_relevance(raw, terms)) for raw in raws),
            key=lambda item: (item[0].hops, -item[0].named_hits, -item[1], -len(item[0].chunk_ids)),
        )
        kept = 0
        for raw, relevance in ranked:
            if kept >= cap or raw.identity in seen:
                continue
            seen.add(raw.identity)
            facts.append(_to_fact(raw, tier, relevance))
            kept += 1

    take(out.key, FactTier.KEY, caps.key)
    bridge_raws = [raw for path in out.bridge for raw in path]
    take([r.model_copy(update={"hops": 1}) for r in bridge_raws], FactTier.BRIDGE, caps.bridge)
    take(out.direct, FactTier.DIRECT, caps.direct)
    take(out.chain, FactTier.DIRECT, caps.chain)
    return facts


def _term_weights(terms: set[str], chunks: list[CandidateChunk]) -> dict[str, float]:
    """IDF of each question term within the candidate chunks: a term every candidate has separates nothing."""
    n = len(chunks)
    df = dict.fromkeys(terms, 0)
    for chunk in chunks:
        for term in terms & _terms(chunk.text):
            df[term] += 1
    return {term: math.log((n + 1) / (count + 0.5)) for term, count in df.items()}


def _weighted_overlap(weights: dict[str, float], total: float, chunk: CandidateChunk) -> float:
    """The share of the question's weighted terms in the chunk; `total`: the weights' sum."""
    if total <= 0:
        return 0.0
    present = weights.keys() & _terms(chunk.text)
    return math.fsum(weights[t] for t in present) / total  # fsum: the same whatever the set order


def rank_chunks(
    facts: list[Fact],
    fact_chunks: dict[str, CandidateChunk],
    candidates: list[CandidateChunk],
    question: str,
    limit: int | None = None,
) -> list[tuple[RankedChunk, str | None]]:
    """Chunks behind KEY facts, then BRIDGE, then DIRECT, then the other candidates. Within a bucket: named outlet,
    then overlap with the question's terms weighted by their rarity among these chunks (plus, for candidates, the
    matched entities they mention and the date windows). Returns each chunk with the evidence that brought it in:
    the first `limit` (all when None), scored by their place among all."""
    terms = content_terms(question)
    weights = _term_weights(terms, [*candidates, *fact_chunks.values()])
    total_weight = math.fsum(weights.values())
    entries: dict[str, tuple[tuple[float, ...], CandidateChunk, str | None]] = {}
    for rank, fact in enumerate(facts):
        for i, chunk_id in enumerate(fact.chunk_ids):
            chunk = fact_chunks.get(chunk_id)
            if chunk is None or chunk_id in entries:
                continue
            evidence = fact.evidence_at(i)
            lexical = _weighted_overlap(weights, total_weight, chunk)
            sort_key: tuple[float, ...] = (_BUCKET[fact.tier], -(float(chunk.named) + 3.0 * lexical), rank)
            entries[chunk_id] = (sort_key, chunk, evidence)
    for chunk in candidates:
        if chunk.chunk_id in entries:
            continue
        lexical = _weighted_overlap(weights, total_weight, chunk)
        sort_key = (
            float(_CANDIDATE_BUCKET),
            -(min(chunk.entities, 3) + float(chunk.named) + 0.5 * float(chunk.in_window) + 3.0 * lexical),
        )
        entries[chunk.chunk_id] = (sort_key, chunk, None)
    ordered = sorted(entries.values(), key=lambda entry: entry[0])
    total = len(ordered)
    return [
        (
            RankedChunk.from_record(chunk, round((total - position) / total, 4)),
            evidence,
        )
        for position, (_, chunk, evidence) in enumerate(ordered[:limit])
    ]


def excerpt(text: str, evidence: str | None, chars: int) -> str:
    """About `chars` characters of a chunk, centred on the evidence sentence when it is in the text."""
    body = text
    if body.startswith("[Source:") and "]" in body:
        body = body[body.index("]") + 1 :].lstrip()
    if len(body) <= chars:
        return body
    start = 0
    if evidence:
        found = body.find(evidence[:80])
        if found > 0:
            start = max(0, min(found - (chars - len(evidence)) // 2, len(body) - chars))
    cut = body[start : start + chars]
    return ("…" if start > 0 else "") + cut.strip() + ("…" if start + chars < len(body) else "")
