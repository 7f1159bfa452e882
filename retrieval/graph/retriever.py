"""The deterministic graph retriever: stage 1 (aliases) -> 2 (matching) -> 3 (templates) -> 4 (filtering).

Stage 5 (answering) is an Answerer (retrieval/answer/*) applied to the result. No LLM writes Cypher; with no
matched entity or publication the result is empty and says why, so the answerer abstains instead of guessing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.graph.aliases import AliasStage, LlmAliasFn
from graphwire.retrieval.graph.chunks import ChunkCache
from graphwire.retrieval.graph.filtering import FactCaps, excerpt, prepare_chunk, rank_chunks, select_facts
from graphwire.retrieval.graph.matching import MatchPolicy, TieredMatcher
from graphwire.retrieval.graph.models import CandidateChunk, QuestionAnalysis
from graphwire.retrieval.graph.names import NameIndexCache
from graphwire.retrieval.graph.relations import asked_relations
from graphwire.retrieval.graph.templates import TemplateLimits, TemplateRunner
from graphwire.retrieval.models import ChunkRecord, Excerpt, Fact, QuestionSummary, RetrievalResult
from graphwire.retrieval.timing import StageTimer
from graphwire.schema.model import GraphSchema, load_schema

if TYPE_CHECKING:
    from graphwire.retrieval.services import GraphServices


NO_MATCH_REASON = "no question entity or publication matched a graph node"


class GraphRetriever:
    name = "graph"

    def __init__(
        self,
        graph: Graph,
        caps: FactCaps | None = None,
        llm_aliases: LlmAliasFn | None = None,
        match_policy: MatchPolicy | None = None,
        limits: TemplateLimits | None = None,
        name_index_ttl_s: float = 10.0,
        services: GraphServices | None = None,
        *,
        schema: GraphSchema,
    ) -> None:
        """With `services`, the name index, stage 1 cache, matcher and chunk cache are the process's shared ones
        (`llm_aliases` and `match_policy`, when given, still get a stage of their own). `schema`: whose relation cue
        words say what a question asks and which label is the outlet (the services' own, when given)."""
        self.graph = graph
        self.caps = caps or FactCaps()
        self.schema = schema
        if services is None:
            self.names = NameIndexCache(graph, schema, ttl_s=name_index_ttl_s)
            self.aliases = AliasStage(llm_aliases)
            self.matcher = TieredMatcher(match_policy)
            chunks = ChunkCache(graph, prepare=prepare_chunk)
        else:
            self.names = services.names
            self.aliases = services.aliases if llm_aliases is None else AliasStage(llm_aliases)
            self.matcher = services.matcher if match_policy is None else TieredMatcher(match_policy)
            chunks = services.chunks
        lists = services.scope.lists if services is not None and services.scope is not None else None
        self.templates = TemplateRunner(graph, limits, chunks, publisher=schema.roles.publisher_label, lists=lists)

    @classmethod
    def from_settings(
        cls,
        graph: Graph,
        settings: Settings,
        llm_aliases: LlmAliasFn | None = None,
        services: GraphServices | None = None,
    ) -> GraphRetriever:
        schema = services.schema if services is not None else load_schema(settings.schema_path)
        return cls(graph, FactCaps.from_settings(settings), llm_aliases, services=services, schema=schema)

    def analyse(self, question: str) -> QuestionAnalysis:
        return self.aliases.run(question, self.names.get())

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        timer = StageTimer()
        with timer.stage("aliases"):
            index = self.names.get()
            analysis = self.aliases.run(question, index)
        with timer.stage("matching"):
            matches = self.matcher.match(analysis, index)
        details: dict[str, object] = {
            "mentions": [m.text for m in analysis.mentions],
            "publications": [p.name for p in analysis.publications],
            "dates": [w.model_dump(mode="json") for w in analysis.dates],
            "extractors": analysis.extractors,
        }
        summary = QuestionSummary(
            yes_no=analysis.signals.yes_no,
            order=analysis.order,
            outlets=analysis.signals.outlets,
            unknown_publications=analysis.unknown_publications,
        )
        if not matches:
            return RetrievalResult(
                mode=self.name,
                analysis=summary,
                abstain_reason=NO_MATCH_REASON,
                timings_ms=timer.finish(),
                details=details,
            )
        with timer.stage("templates"):
            publishers = [m.key for m in matches if m.label == index.publisher]
            out = self.templates.run(
                analysis, matches, sorted(asked_relations(question, self.schema)), index.sources_of(publishers)
            )
        with timer.stage("filtering"):
            facts = select_facts(out, question, self.caps)
            wanted = list(dict.fromkeys(cid for fact in facts for cid in fact.chunk_ids))
            known = {c.chunk_id: c for c in out.candidates}
            fact_chunks: dict[str, CandidateChunk] = {cid: known[cid] for cid in wanted if cid in known}
            fact_chunks |= self.templates.chunks_by_id([cid for cid in wanted if cid not in known])
        with timer.stage("chunks"):
            # chain facts serve the answerer; the chunk ranking stays the one the other facts give
            chain_names = {(raw.subject, raw.relationship, raw.object) for raw in out.chain}
            ranking_facts = [f for f in facts if (f.subject, f.relationship, f.object) not in chain_names]
            ranked = rank_chunks(
                ranking_facts, fact_chunks, out.candidates, question, limit=max(top_k, self.caps.excerpts)
            )
            excerpts = [
                _excerpt(chunk, evidence, self.caps.excerpt_chars)
                for chunk, evidence in ranked[: self.caps.excerpts]
                if chunk.chunk_id in fact_chunks
            ]
            excerpts += self._chain_excerpts(facts, chain_names, fact_chunks, excerpts)
        return RetrievalResult(
            mode=self.name,
            chunks=[chunk for chunk, _ in ranked[:top_k]],
            facts=facts,
            entities=matches,
            analysis=summary,
            excerpts=excerpts,
            timings_ms=timer.finish(),
            details=details,
        )

    def _chain_excerpts(
        self,
        facts: list[Fact],
        chain_names: set[tuple[str, str, str]],
        fact_chunks: dict[str, CandidateChunk],
        excerpts: list[Excerpt],
    ) -> list[Excerpt]:
        """Excerpts of the chunks behind chain facts that the ranking did not bring in (so answers can cite them)."""
        have = {e.chunk_id for e in excerpts}
        extra: list[Excerpt] = []
        for fact in facts:
            if (fact.subject, fact.relationship, fact.object) not in chain_names:
                continue
            for i, chunk_id in enumerate(fact.chunk_ids):
                chunk = fact_chunks.get(chunk_id)
                if chunk is None or chunk_id in have:
                    continue
                have.add(chunk_id)
                evidence = fact.evidence_at(i)
                extra.append(_excerpt(chunk, evidence, self.caps.excerpt_chars))
        return extra


def _excerpt(chunk: ChunkRecord, evidence: str | None, chars: int) -> Excerpt:
    return Excerpt(
        chunk_id=chunk.chunk_id,
        title=chunk.title,
        source=chunk.source,
        published_at=chunk.published_at,
        locator=chunk.locator,
        text=excerpt(chunk.text, evidence, chars),
    )
