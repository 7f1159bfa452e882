"""Retrieval modes and answerers by name, for the API and the evaluation harness.

Each mode is one `ModeSpec` line in `MODES`: a name, a one-line description, what it needs (Neo4j, Chroma) and a
factory given as "module:function" (imported on first use, so a mode's dependencies load only when it is used).
The factory takes a `RetrievalContext` and returns a `Retriever`. To add a mode: write the factory next to your
retriever and add ONE line to `MODES`.

    pool = RetrieverPool(RetrievalContext(settings, graph=lambda: graph))
    result = pool.get("graph").retrieve("Who supplies Kestrel Motors?", top_k=10)
    answer = build_answerer("auto", settings).answer(question, result)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import import_module
from typing import Any, cast

from core.graph import Graph
from core.settings import Settings
from retrieval.base import Answerer, Retriever


class UnknownModeError(ValueError):
    """A mode or answerer name that is not registered (or not usable with this configuration)."""


@dataclass
class RetrievalContext:
    """What factories may use: settings, and lazy getters for the shared Neo4j graph and Chroma client."""

    settings: Settings
    graph: Callable[[], Graph] | None = None
    chroma: Callable[[], Any] | None = None

    def require_graph(self) -> Graph:
        if self.graph is None:
            raise UnknownModeError("this mode needs Neo4j, but no graph was provided")
        return self.graph()


RetrieverFactory = Callable[[RetrievalContext], Retriever]


@dataclass(frozen=True)
class ModeSpec:
    name: str
    description: str
    factory: str  # "module:function", function(RetrievalContext) -> Retriever
    needs_graph: bool = False
    needs_chroma: bool = False

    def load(self) -> RetrieverFactory:
        module_name, _, attr = self.factory.partition(":")
        return cast(RetrieverFactory, getattr(import_module(module_name), attr))


MODES: dict[str, ModeSpec] = {
    spec.name: spec
    for spec in (
        ModeSpec("graph", "five-stage deterministic graph retriever (KEY/BRIDGE/DIRECT facts)", "retrieval.registry:graph_mode", needs_graph=True),  # noqa: E501
        ModeSpec("ppr", "Personalized PageRank over entities, facts and passages (HippoRAG 2 / FastGraphRAG)", "retrieval.ppr.mode:ppr_mode", needs_graph=True),  # noqa: E501
        ModeSpec("vector", "ChromaDB top-k over the chunks (the vector baseline)", "retrieval.flat.modes:vector_mode", needs_chroma=True),  # noqa: E501
        ModeSpec("bm25", "BM25 over the same chunks", "retrieval.flat.modes:bm25_mode", needs_chroma=True),
        ModeSpec("fused", "reciprocal-rank fusion of vector and BM25", "retrieval.flat.modes:fused_mode", needs_chroma=True),  # noqa: E501
        ModeSpec("flat_plus", "fused + named outlets, dates, one pick per outlet and claim", "retrieval.flat.modes:flat_plus_mode", needs_chroma=True),  # noqa: E501
        ModeSpec("hybrid", "graph-guided flat search: the graph's chunk ranking fused into flat+", "retrieval.hybrid:hybrid_mode", needs_graph=True, needs_chroma=True),  # noqa: E501
        ModeSpec("auto", "router: picks graph, vector, hybrid or ppr from question features and says why", "retrieval.router:auto_mode", needs_graph=True),  # noqa: E501
    )
}  # fmt: skip


def graph_mode(ctx: RetrievalContext) -> Retriever:
    from retrieval.graph import GraphRetriever

    llm_aliases = None
    if ctx.settings.llm_configured:
        from retrieval.aliases.llm import LLMAliasExtractor

        llm_aliases = LLMAliasExtractor(ctx.settings)
    return GraphRetriever.from_settings(ctx.require_graph(), ctx.settings, llm_aliases=llm_aliases)


def mode_names() -> list[str]:
    return list(MODES)


def build_retriever(name: str, ctx: RetrievalContext) -> Retriever:
    spec = MODES.get(name)
    if spec is None:
        raise UnknownModeError(f"unknown retrieval mode {name!r}; known modes: {', '.join(MODES)}")
    return spec.load()(ctx)


@dataclass
class RetrieverPool:
    """Builds each mode once and reuses it (retrievers hold caches); rebuilt when the graph object changes."""

    ctx: RetrievalContext
    _built: dict[str, tuple[int, Retriever]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, name: str) -> Retriever:
        spec = MODES.get(name)
        if spec is None:
            raise UnknownModeError(f"unknown retrieval mode {name!r}; known modes: {', '.join(MODES)}")
        graph_id = id(self.ctx.require_graph()) if spec.needs_graph else 0
        with self._lock:
            cached = self._built.get(name)
            if cached is not None and cached[0] == graph_id:
                return cached[1]
        retriever = spec.load()(self.ctx)
        with self._lock:
            self._built[name] = (graph_id, retriever)
        return retriever


class AnswererName(StrEnum):
    AUTO = "auto"  # the LLM when one is configured, else extractive
    EXTRACTIVE = "extractive"
    LLM = "llm"


def build_answerer(name: str | AnswererName, settings: Settings) -> Answerer:
    choice = AnswererName(name)
    if choice is AnswererName.AUTO:
        choice = AnswererName.LLM if settings.llm_configured else AnswererName.EXTRACTIVE
    if choice is AnswererName.EXTRACTIVE:
        from core.schema import configured_schema
        from retrieval.answer.extractive import ExtractiveAnswerer

        return ExtractiveAnswerer(schema=configured_schema(settings))
    if not settings.llm_configured:
        raise UnknownModeError("answerer 'llm' needs LLM_BASE_URL and LLM_MODEL; use 'extractive' or 'auto'")
    from retrieval.answer.llm import LLMAnswerer

    return LLMAnswerer(settings)
