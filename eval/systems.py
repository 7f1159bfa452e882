"""Resolves the system names of `graphwire eval --systems` to retrievers (and picks the answerer).

Every retrieval mode comes from `retrieval.registry`, the same place the API gets them, so the harness measures
exactly what users call. The one eval-only system is `oracle` (the ceiling of the chunking; it reads the gold).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import Any

from core.chunk_store import ChunkStore
from core.graph import Graph
from core.settings import Settings
from eval.corpus_check import CorpusCheck, compare_titles, unreachable
from eval.datasets import CorpusArticle, Question
from eval.oracle import OracleRetriever
from retrieval.base import Answerer, Retriever

ORACLE = "oracle"
DEFAULT_SYSTEMS = ("vector", "bm25", "fused", "graph", "hybrid", "ppr")


class UnknownSystemError(ValueError):
    """A system name the registry does not know, or a store it needs that is missing."""


def _registry() -> Any:
    try:
        return importlib.import_module("retrieval.registry")
    except ModuleNotFoundError as exc:
        raise UnknownSystemError(f"retrieval/registry.py is not available ({exc}); only {ORACLE!r} can run") from exc


def available_systems() -> list[str]:
    """Names the registry offers, plus the oracle."""
    try:
        names = list(_registry().available_modes())
    except UnknownSystemError:
        names = []
    return [*names, ORACLE]


class SystemBuilder:
    """Builds retrievers lazily and closes what it opened (Neo4j driver) at the end of the run."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._stack = ExitStack()
        self._graph: Graph | None = None
        self._store: ChunkStore | None = None

    def __enter__(self) -> SystemBuilder:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            self._graph = Graph.from_settings(self.settings)
            self._stack.callback(self._graph.close)
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
            else:
                built[name] = self._from_registry(name)
        return built

    def _from_registry(self, name: str) -> Retriever:
        registry = _registry()
        modes = list(registry.available_modes())
        if name not in modes:
            raise UnknownSystemError(f"unknown system {name!r}; available: {', '.join([*modes, ORACLE])}")
        retriever: Retriever = registry.build_retriever(name, self.settings)
        return retriever

    def answerer(self) -> Answerer:
        """The LLM answerer when an LLM is configured, else the extractive one (labelled as such in reports)."""
        builder: Callable[[Settings], Answerer] = _registry().build_answerer
        return builder(self.settings)

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
