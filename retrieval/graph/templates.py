"""Stage 3: run the fixed, parameterized Cypher templates in cypher/retrieve/ (read transactions, all bounded)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.concurrency import Beside
from graphwire.retrieval.graph.chunks import ChunkCache
from graphwire.retrieval.graph.models import CandidateChunk, QuestionAnalysis, RawFact, TemplateOutput
from graphwire.retrieval.models import ChunkRecord, EntityMatch

_FLAGS = ("entities", "mentions", "named", "in_window")


@dataclass(frozen=True)
class TemplateLimits:
    key: int = 50
    bridge_scan: int = 200  # paths read before filtering (two rows each)
    direct_per_entity: int = 40
    two_hop_fanout: int = 20  # neighbours of a matched entity whose own relationships are read (best supported first)
    two_hop_max_degree: int = 5000  # a neighbour (or a chain entity off the asked types) with more, a hub, is not read
    two_hop_per_entity: int = 12
    chunks_per_fact: int = 100  # supporting chunks read per relationship (hub provenance lists are longer)
    candidates: int = 120
    chain_per_entity: int = 8
    chain_total: int = 60


Lists = list[list[str]]
# A name no key or source is: it stands in for an empty list of names, so a statement's parameters keep one type.
# Neo4j plans a statement once per parameter type, and an empty list is typed apart from a list of strings: without
# it, the first question after a start that names no outlet where the last named one waited 0.5-1.8 s for a plan.
NO_NAME = "\u0000"


def names(values: Iterable[str]) -> list[str]:
    """`values` as a statement parameter: never empty (NO_NAME in place of none, which matches nothing)."""
    return list(values) or [NO_NAME]


def query_params(analysis: QuestionAnalysis, matches: list[EntityMatch], lists: Lists | None = None) -> dict[str, Any]:
    """Parameters shared by the templates: matched keys, named-publication source names, date windows, and the
    access lists of the chunks a restricted reader may read besides the open ones (None: every chunk)."""
    sources = sorted(set(analysis.sources) | {p.name for p in analysis.publications})
    windows = [w.as_param() for w in analysis.dates]
    return {"keys": names(m.key for m in matches), "sources": names(sources), "windows": windows, "lists": lists}


class TemplateRunner:
    """Two reads per question, each its own read transaction, run at once: the KEY/BRIDGE/DIRECT facts
    (`retrieve/facts`, then `retrieve/relation_hops` for the chain when the question asks about relations) on the
    caller's thread, the candidate chunks (`retrieve/candidates`) beside it. Neo4j runs each transaction on one core,
    so the candidates cost no time of their own on a machine with a second core free."""

    def __init__(
        self,
        graph: Graph,
        limits: TemplateLimits | None = None,
        chunks: ChunkCache | None = None,
        *,
        publisher: str,
        lists: Lists | None = None,
    ) -> None:
        """`publisher`: the schema's `publisher_label`; matches of it are the question's named outlets; `lists`:
        a restricted reader's readable access lists (retrieval/scope.py), None for every chunk."""
        self.graph = graph
        self.lists = lists
        self.publisher = publisher
        self.limits = limits or TemplateLimits()
        self.chunks = chunks or ChunkCache(graph)

    def run(
        self,
        analysis: QuestionAnalysis,
        matches: list[EntityMatch],
        chain_types: Sequence[str] = (),
        publication_sources: Sequence[str] = (),
    ) -> TemplateOutput:
        """The facts, the chain facts of `chain_types` (the relations the question asks about) and the candidates;
        `publication_sources`: the corpus sources whose documents report to the matched publications (the name
        index's `sources_of`)."""
        params = query_params(analysis, matches, self.lists)
        wanted = self.candidates_params(params, matches, publication_sources)
        candidates = Beside(lambda: self._candidates(wanted), name="graphwire-candidates")
        [row] = self.graph.read("retrieve/facts", **self.facts_params(params, pair=len(matches) >= 2))
        out = _tiers(row["facts"])
        out.chain = self.expand_chain(params, out, list(chain_types))
        out.candidates = candidates.result()
        return out

    def facts_params(self, params: dict[str, Any], *, pair: bool) -> dict[str, Any]:
        """The parameters of `retrieve/facts` (`params`: `query_params`; `pair`: two or more entities matched)."""
        limits = self.limits
        return {
            **params,
            "key_limit": limits.key if pair else 0,
            "bridge_scan": limits.bridge_scan if pair else 0,
            "direct_per_entity": limits.direct_per_entity,
            "two_hop_fanout": limits.two_hop_fanout,
            "two_hop_max_degree": limits.two_hop_max_degree,
            "chunks_per_fact": limits.chunks_per_fact,
            "two_hop_per_entity": limits.two_hop_per_entity,
        }

    def candidates_params(
        self, params: dict[str, Any], matches: list[EntityMatch], publication_sources: Sequence[str]
    ) -> dict[str, Any]:
        """The parameters of `retrieve/candidates`."""
        return {
            "lists": params["lists"],
            "sources": params["sources"],
            "windows": params["windows"],
            "entity_keys": names(m.key for m in matches if m.label != self.publisher),
            "publication_keys": names(m.key for m in matches if m.label == self.publisher),
            "publication_sources": names(publication_sources),
            "limit": self.limits.candidates,
        }

    def _candidates(self, params: dict[str, Any]) -> list[CandidateChunk]:
        [row] = self.graph.read("retrieve/candidates", **params)
        rows = row["candidates"]
        records = self.chunks.get_many([r["chunk_id"] for r in rows])
        return [
            _candidate(records[r["chunk_id"]], **{k: r[k] for k in _FLAGS}) for r in rows if r["chunk_id"] in records
        ]

    def expand_chain(self, params: dict[str, Any], out: TemplateOutput, types: list[str]) -> list[RawFact]:
        """Relationships of the asked types around every entity the facts reached (one more hop), new ones only; a hub
        is read only when the asked types join it to the question's entities (`on_chain`)."""
        reached = [fact for fact in [*out.key, *(r for path in out.bridge for r in path), *out.direct]]
        keys = list(dict.fromkeys(k for fact in reached for k in (fact.subject_key, fact.object_key)))
        if not types or not keys:
            return []
        seen = {fact.identity for fact in reached}
        rows = self.graph.read(
            "retrieve/relation_hops",
            **{**params, "keys": keys},
            near=sorted(on_chain(set(params["keys"]), reached, set(types))),
            two_hop_max_degree=self.limits.two_hop_max_degree,
            types=types,
            per_entity=self.limits.chain_per_entity,
            limit=self.limits.chain_total,
            chunks_per_fact=self.limits.chunks_per_fact,
        )
        facts = [RawFact.model_validate(row) for row in rows]
        return [fact for fact in facts if fact.identity not in seen]

    def chunks_by_id(self, ids: list[str]) -> dict[str, CandidateChunk]:
        """Chunks behind facts that were not among the candidates (from the cache, else one read)."""
        records = self.chunks.get_many(ids)
        return {chunk_id: _candidate(record) for chunk_id, record in records.items()}


def on_chain(matched: set[str], facts: Sequence[RawFact], types: set[str]) -> set[str]:
    """The question's entities and every entity the facts join to them through relationships of the asked types
    ("the chief executive of the company that acquired X": X and its acquirer, not the acquirer's city)."""
    near, grown = set(matched), True
    while grown:
        grown = False
        for fact in facts:
            ends = {fact.subject_key, fact.object_key}
            if fact.relationship in types and ends & near and not ends <= near:
                near |= ends
                grown = True
    return near


def _tiers(rows: list[dict[str, Any]]) -> TemplateOutput:
    out = TemplateOutput()
    paths: dict[str, list[RawFact]] = defaultdict(list)
    for row in rows:
        fact = RawFact.model_validate(row)
        if row["tier"] == "KEY":
            out.key.append(fact)
        elif row["tier"] == "BRIDGE":
            paths[row["path"]].append(fact)
        else:
            out.direct.append(fact)
    out.bridge = [path for path in paths.values() if len(path) == 2]  # both legs survived the date filter
    return out


def _candidate(record: ChunkRecord, **flags: Any) -> CandidateChunk:
    """A cached record (validated when read) with the template's counters; not validated again, once per row."""
    return CandidateChunk.model_construct(**dict(record), **flags)
