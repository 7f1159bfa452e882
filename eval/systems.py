"""Resolves the system names of `graphwire eval --systems` to retrievers (and picks the answerer).

Every retrieval mode comes from `retrieval.registry`, the same place the API gets them, so the harness measures
exactly what users call. Flat modes of `retrieval.flat` that the registry does not list yet are built directly, so
the flat baselines are always there. The one eval-only system is `oracle` (the ceiling; it reads the gold).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import move_into_default
from graphwire.eval.corpus_check import CorpusCheck, compare_titles, unreachable
from graphwire.eval.oracle import OracleRetriever
from graphwire.eval.questions import CorpusArticle, Question
from graphwire.retrieval.base import Answerer, Retriever
from graphwire.retrieval.registry import RetrievalContext, UnknownModeError, build_retriever, mode_names

ORACLE = "oracle"
FLAT_MODES = ("vector", "bm25", "fused", "flat_plus")


class UnknownSystemError(ValueError):
    """A system name the registry does not know, or a mode this configuration cannot build."""


def _flat_fallbacks() -> list[str]:
    """Flat modes (retrieval.flat) that the registry does not list yet; the harness always has the flat baselines."""
    return [name for name in FLAT_MODES if name not in mode_names()]


def available_systems() -> list[str]:
    """Names the registry offers, the flat baselines it does not list, and the oracle."""
    return [*mode_names(), *_flat_fallbacks(), ORACLE]


class SystemBuilder:
    """Builds retrievers lazily and closes what it opened (Neo4j driver) at the end of the run."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._stack = ExitStack()
        self._graph: Graph | None = None
        self._store: ChunkStore | None = None
        self._ctx: RetrievalContext | None = None

    def __enter__(self) -> SystemBuilder:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            self._graph = Graph.from_settings(self.settings)
            self._stack.callback(self._graph.close)
            move_into_default(self._graph)  # a store written before workspaces
        return self._graph

    @property
    def store(self) -> ChunkStore:
        if self._store is None:
            self._store = ChunkStore.from_settings(self.settings)
        return self._store

    def retrievers(self, names: Sequence[str], questions: Sequence[Question]) -> dict[str, Retriever]:
        built: dict[str, Retriever] = {}
        for name in names:
            if name == ORACLE:
                built[name] = OracleRetriever(self.store.iter_all(), questions)
            elif name in _flat_fallbacks():
                built[name] = self._flat_retriever(name)
            else:
                built[name] = self._from_registry(name)
        return built

    def _flat_retriever(self, name: str) -> Retriever:
        return self._context().flat_retrievers()[name]  # the same flat index the registry's flat modes use

    def _context(self) -> RetrievalContext:
        """One context for the whole run: every system shares its graph services and flat index, as in the API."""
        if self._ctx is None:
            self._ctx = RetrievalContext(self.settings, graph=lambda: self.graph, chroma=self._chroma)
        return self._ctx

    def _chroma(self) -> object:
        return self.store.client

    def _from_registry(self, name: str) -> Retriever:
        if name not in mode_names():
            raise UnknownSystemError(f"unknown system {name!r}; available: {', '.join(available_systems())}")
        try:
            return build_retriever(name, self._context())
        except UnknownModeError as exc:
            raise UnknownSystemError(f"system {name!r} cannot be built: {exc}") from exc

    def warm(self) -> None:
        """The shared caches read before any question is timed (RetrievalContext.warm)."""
        self._context().warm()

    def answerer(self, name: str = "auto") -> Answerer:
        """The LLM answerer when an LLM is configured, else the extractive one (labelled as such in reports)."""
        try:
            return self._context().answerer(name)
        except (UnknownModeError, ValueError) as exc:
            raise UnknownSystemError(f"answerer {name!r} cannot be built: {exc}") from exc

    def corpus_check(self, corpus: Sequence[CorpusArticle]) -> CorpusCheck:
        stores = []
        try:
            stores.append(
                compare_titles("graph", corpus, (r["title"] for r in self.graph.read("eval/document_titles")))
            )
        except Exception as exc:  # unreachable or unauthenticated: say so in the report, keep going
            stores.append(unreachable("graph", exc))
        try:
            stores.append(compare_titles("chunk store", corpus, {c.title for c in self.store.iter_all()}))
        except Exception as exc:
            stores.append(unreachable("chunk store", exc))
        return CorpusCheck(corpus_size=len(corpus), stores=stores)
