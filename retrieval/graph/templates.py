"""Stage 3: run the fixed, parameterized Cypher templates in cypher/retrieve/ (read transactions, all bounded)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from core.graph import Graph
from retrieval.graph.models import CandidateChunk, QuestionAnalysis, RawFact, TemplateOutput
from retrieval.graph.names import PUBLICATION
from retrieval.models import EntityMatch


@dataclass(frozen=True)
class TemplateLimits:
    key: int = 50
    bridge_paths: int = 60
    bridge_scan: int = 2000
    direct_per_entity: int = 15
    direct_scan: int = 400
    two_hop_per_entity: int = 6
    two_hop_scan: int = 400
    candidates: int = 120


def to_date(value: Any) -> date | None:
    """Neo4j dates, ISO strings and datetimes (as stored by ingestion) -> date."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, date):
        return value if type(value) is date else value.date()  # type: ignore[attr-defined]
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def query_params(analysis: QuestionAnalysis, matches: list[EntityMatch]) -> dict[str, Any]:
    """Parameters shared by the templates: matched keys, named-publication source names, date windows."""
    sources = sorted(set(analysis.sources) | {p.name for p in analysis.publications})
    windows = [w.as_param() for w in analysis.dates]
    return {"keys": [m.key for m in matches], "sources": sources, "windows": windows}


class TemplateRunner:
    def __init__(self, graph: Graph, limits: TemplateLimits | None = None) -> None:
        self.graph = graph
        self.limits = limits or TemplateLimits()

    def run(self, analysis: QuestionAnalysis, matches: list[EntityMatch]) -> TemplateOutput:
        params = query_params(analysis, matches)
        out = TemplateOutput()
        if len(matches) >= 2:
            out.key = self._facts("retrieve/key_facts", params, limit=self.limits.key)
            out.bridge = self._bridges(params)
        if any(m.label != PUBLICATION for m in matches):
            out.direct = self._facts(
                "retrieve/direct_facts", params, per_entity=self.limits.direct_per_entity, scan=self.limits.direct_scan
            )
            out.direct += self._facts(
                "retrieve/direct_two_hop",
                params,
                per_entity=self.limits.two_hop_per_entity,
                scan=self.limits.two_hop_scan,
            )
        out.candidates = self._candidates(params, matches)
        return out

    def _facts(self, name: str, params: dict[str, Any], **limits: int) -> list[RawFact]:
        return [RawFact.model_validate(row) for row in self.graph.read(name, **params, **limits)]

    def _bridges(self, params: dict[str, Any]) -> list[list[RawFact]]:
        rows = self.graph.read(
            "retrieve/bridge_facts", **params, limit=self.limits.bridge_paths, scan=self.limits.bridge_scan
        )
        return [[RawFact.model_validate(f) for f in row["path"]] for row in rows]

    def _candidates(self, params: dict[str, Any], matches: list[EntityMatch]) -> list[CandidateChunk]:
        rows = self.graph.read(
            "retrieve/candidate_chunks",
            entity_keys=[m.key for m in matches if m.label != PUBLICATION],
            publication_keys=[m.key for m in matches if m.label == PUBLICATION],
            sources=params["sources"],
            windows=params["windows"],
            limit=self.limits.candidates,
        )
        return [CandidateChunk.model_validate({**row, "published_at": to_date(row["published_at"])}) for row in rows]

    def chunks_by_id(self, ids: list[str]) -> dict[str, CandidateChunk]:
        if not ids:
            return {}
        rows = self.graph.read("retrieve/chunks_by_id", ids=ids)
        return {
            row["chunk_id"]: CandidateChunk.model_validate({**row, "published_at": to_date(row["published_at"])})
            for row in rows
        }
