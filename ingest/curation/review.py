"""The review queue's reads and rejections: candidate merges with their evidence, and the pairs people rejected.

`candidates` reads every entity's names once, proposes pairs by blocks (`candidates.py`), leaves out the rejected
pairs, asks the graph for the neighbours of the strongest `SHORTLIST` (at least, `limit` × 4) in one statement, scores
and orders them (score, then keys: deterministic) and reads a few sentences that mention each end of the first
`limit`. A rejection is a `:RejectedPair` node keyed by the two entity keys: ingest never writes or removes it, and a
re-ingest gives the entities the same keys, so the pair stays out of the queue until the rejection is taken back.
"""

from __future__ import annotations

from datetime import UTC, datetime

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import strip_prefix
from graphwire.core.sentences import sentence_starts
from graphwire.ingest.curation.candidates import Named, Proposal, named, pair, propose, score
from graphwire.ingest.curation.models import Candidate, CandidateEntity, EditError, PairRequest, Rejection

SHORTLIST = 200  # pairs (at least) whose shared neighbours are read before the queue is cut to `limit`
NEIGHBOUR_NAMES = 5  # shared neighbours named per candidate
CHUNKS_PER_ENTITY, SENTENCES_PER_ENTITY = 3, 3


def candidates(graph: Graph, person_label: str, skip_label: str, limit: int, focus: str | None) -> list[Candidate]:
    """The queue: the `limit` best candidate merges (those with the entity `focus` when given), best first."""
    rows = graph.read("curation/review_entities")
    entities = {str(r["key"]): named(str(r["key"]), str(r["label"]), str(r["name"]), r["aliases"]) for r in rows}
    if focus is not None and focus not in entities:
        raise EditError(f"no entity with key {focus!r}", status=404)
    rejected = {(r.a, r.b) for r in rejections(graph)}
    shortlist = propose(entities.values(), person_label, rejected, focus)[: max(SHORTLIST, 4 * limit)]
    if not shortlist:
        return []
    found = graph.read(
        "curation/review_neighbours",
        pairs=[{"a": p.a, "b": p.b} for p in shortlist],
        skip_label=skip_label,
        names=NEIGHBOUR_NAMES,
    )
    shared = {(str(r["a"]), str(r["b"])): (int(r["shared"]), [str(n) for n in r["names"]]) for r in found}
    ranked = sorted(shortlist, key=lambda p: (-score(p.strength, shared.get((p.a, p.b), (0, []))[0]), p.a, p.b))
    chosen = ranked[:limit]
    said = _sentences(graph, sorted({k for p in chosen for k in (p.a, p.b)}))
    return [_candidate(p, entities, shared.get((p.a, p.b), (0, [])), said) for p in chosen]


def reject(graph: Graph, request: PairRequest) -> Rejection:
    """Record that the two entities are not one (404 for a key the graph lacks, 422 for one entity twice)."""
    a, b = _checked(graph, request)
    at = datetime.now(UTC).isoformat(timespec="milliseconds")
    row = graph.write("curation/reject_pair", a=a, b=b, by=request.by, reason=request.reason, at=at)[0]
    return Rejection.model_validate(row)


def unreject(graph: Graph, request: PairRequest) -> int:
    """Take a rejection back (404 when the pair was not rejected); the queue may propose the pair again."""
    if request.a == request.b:
        raise EditError("a pair needs two different entities")
    a, b = pair(request.a, request.b)
    removed = int(graph.write("curation/unreject_pair", a=a, b=b)[0]["removed"])
    if not removed:
        raise EditError(f"the pair {a!r}, {b!r} was not rejected", status=404)
    return removed


def rejections(graph: Graph) -> list[Rejection]:
    return [Rejection.model_validate(r) for r in graph.read("curation/rejections")]


def _checked(graph: Graph, request: PairRequest) -> tuple[str, str]:
    if request.a == request.b:
        raise EditError("a pair needs two different entities")
    a, b = pair(request.a, request.b)
    exists = {str(r["key"]) for r in graph.read("curation/existing_keys", keys=[a, b])}
    missing = [k for k in (a, b) if k not in exists]
    if missing:
        raise EditError(f"no entity with key {missing[0]!r}", status=404)
    return a, b


def _sentences(graph: Graph, keys: list[str]) -> dict[str, list[str]]:
    """A few sentences that mention each entity: those its MENTIONS name (indices into `sentence_starts` of the
    chunk's text, as the linker and extractor count them), in chunk order, the `[Source: ...]` line left out."""
    out: dict[str, list[str]] = {k: [] for k in keys}
    for row in graph.read("curation/review_mentions", keys=keys, chunks=CHUNKS_PER_ENTITY):
        text = str(row["text"] or "")
        starts = sentence_starts(text)
        body = len(text) - len(strip_prefix(text))
        picked = out[str(row["key"])]
        for index in map(int, row["sentences"]):
            if not 0 <= index < len(starts) or starts[index] < body or len(picked) >= SENTENCES_PER_ENTITY:
                continue
            sentence = text[starts[index] : starts[index + 1] if index + 1 < len(starts) else len(text)].strip()
            if sentence and sentence not in picked:
                picked.append(sentence)
    return out


def _candidate(
    proposal: Proposal, entities: dict[str, Named], shared: tuple[int, list[str]], said: dict[str, list[str]]
) -> Candidate:
    ends = [
        CandidateEntity(key=k, label=entities[k].label, name=entities[k].name, sentences=said.get(k, []))
        for k in (proposal.a, proposal.b)
    ]
    return Candidate(
        a=ends[0],
        b=ends[1],
        score=score(proposal.strength, shared[0]),
        name_strength=proposal.strength,
        reasons=list(proposal.reasons),
        shared_neighbours=shared[0],
        neighbours=shared[1],
    )
