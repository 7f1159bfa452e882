"""Retrieval modes and answerers by name, for the API and the evaluation harness.

Each mode is one `ModeSpec` line in `MODES`: a name, a one-line description, what it needs (Neo4j, Chroma) and a
factory given as "module:function" (imported on first use, so a mode's dependencies load only when it is used).
The factory takes a `RetrievalContext` and returns a `Retriever`. To add a mode: write the factory next to your
retriever, add ONE line to `MODES` and its name to `RetrievalMode` (core/settings.py: the settings that name a mode
validate against it, and importing this module fails while the two differ).

    ctx = RetrievalContext(settings, graph=lambda: graph)
    result = ctx.retriever("graph").retrieve("Who supplies Kestrel Motors?", top_k=10)
    answer = build_answerer("auto", settings).answer(question, result)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import RetrievalMode, Settings
from graphwire.retrieval.base import Answerer, Retriever
from graphwire.retrieval.warmup import WarmStep, Warmup
from graphwire.schema.model import GraphSchema, load_schema

if TYPE_CHECKING:
    from graphwire.retrieval.access import AccessMap
    from graphwire.retrieval.answer.subjects import PassageEntities
    from graphwire.retrieval.flat import FlatRetriever
    from graphwire.retrieval.scope import Scope
    from graphwire.retrieval.services import GraphServices


SCOPES_KEPT = 16  # restricted readers' scoped views a context keeps (each holds its own index and walk graph)
DEFAULT_MODE = "joint"  # the mode of a request that names none (the API's query and retrieve requests)
WARM_TEXT = "Warm-up."  # what the embedding session and the NER pipeline are first run on


class UnknownModeError(ValueError):
    """A mode or answerer name that is not registered (or not usable with this configuration)."""


@dataclass
class RetrievalContext:
    """What factories may use: settings, lazy getters for the shared Neo4j graph and Chroma client, and the state
    every mode shares, built once per context (one context per process: the API app, a CLI command, an eval run).

    - `services()`: the `GraphServices` (name index, stage 1 cache, matcher, chunk cache, PPR snapshot, schema) of
      the current graph; rebuilt only when the graph object changes (the API re-creates it after an auth failure).
    - `flat_retrievers()`: the four flat retrievers over one chunk store and one in-memory flat index.
    - `retriever(name)`: each mode built once and reused, so modes that use another mode (hybrid uses graph and
      flat_plus, auto any of them) get the same instance the API serves.
    - `scoped(scope)`: the context as a restricted reader sees it (retrieval/scope.py): the same modes built over
      views of the shared state that hold only what the reader may read; kept for the SCOPES_KEPT latest scopes.
    """

    settings: Settings
    graph: Callable[[], Graph] | None = None
    chroma: Callable[[], Any] | None = None
    scope: Scope | None = None  # set on a scoped view: what its reader may read
    parent: RetrievalContext | None = field(default=None, repr=False)  # a scoped view's shared context
    _scoped: OrderedDict[str, RetrievalContext] = field(default_factory=OrderedDict, init=False, repr=False)
    _services: tuple[int, Any] | None = field(default=None, init=False, repr=False)
    _flat: dict[str, Any] | None = field(default=None, init=False, repr=False)
    _own_chroma: Any = field(default=None, init=False, repr=False)
    _built: dict[str, tuple[int, Retriever]] = field(default_factory=dict, init=False, repr=False)
    _answerers: dict[str, Answerer] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False, repr=False)
    warmup: Warmup = field(default_factory=Warmup, init=False, repr=False)

    @property
    def schema(self) -> GraphSchema:
        """The schema of this context's settings (SCHEMA_PATH), which every mode and answerer it builds is given."""
        return load_schema(self.settings.schema_path)

    def require_graph(self) -> Graph:
        if self.graph is None:
            raise UnknownModeError("this mode needs Neo4j, but no graph was provided")
        return self.graph()

    def services(self) -> GraphServices:
        from graphwire.retrieval.services import GraphServices

        if self.parent is not None and self.scope is not None:
            shared = self.parent.services()
            with self._lock:
                if self._services is None or self._services[0] != id(shared):
                    self._services = (id(shared), shared.scoped(self.scope))
                return cast(GraphServices, self._services[1])
        graph = self.require_graph()
        with self._lock:
            if self._services is None or self._services[0] != id(graph):
                self._services = (id(graph), GraphServices.from_settings(graph, self.settings))
            return cast(GraphServices, self._services[1])

    def scoped(self, scope: Scope) -> RetrievalContext:
        """This context as a reader of only `scope` sees it: its modes, built on first use, rank over views of
        this context's shared state (retrieval/scope.py); answerers are this context's."""
        with self._lock:
            view = self._scoped.get(scope.key)
            if view is None:
                view = RetrievalContext(self.settings, self.graph, self.chroma_client, scope, self)
                self._scoped[scope.key] = view
                while len(self._scoped) > SCOPES_KEPT:
                    self._scoped.popitem(last=False)
            self._scoped.move_to_end(scope.key)
            return view

    def access(self) -> Callable[[], AccessMap] | None:
        """The getter of the graph's current access map (retrieval/access.py), or None without a graph: a restricted
        reader's retrieval is then refused, never answered unfiltered."""
        if self.graph is None:
            return None
        return lambda: self.services().access.get()

    def chroma_client(self) -> Any:
        """The Chroma client every mode of this context reads: the surface's (`chroma`), else one opened from the
        settings on first use and kept, so a context built without a getter ranks as the API's does."""
        if self.chroma is not None:
            return self.chroma()
        with self._lock:
            if self._own_chroma is None:
                from graphwire.core.clients.chroma import open_client

                self._own_chroma = open_client(self.settings)
            return self._own_chroma

    def flat_retrievers(self) -> dict[str, FlatRetriever]:
        with self._lock:
            if self._flat is None and self.parent is not None and self.scope is not None:
                from graphwire.retrieval.flat import scoped_flat_retrievers

                shared = self.parent.flat_retrievers()
                self._flat = dict(scoped_flat_retrievers(shared, self.settings, self.schema, self.scope))
            if self._flat is None:
                from graphwire.core.clients.chunk_store import ChunkStore
                from graphwire.core.clients.embeddings import embedder_from_settings
                from graphwire.retrieval.flat import build_flat_retrievers

                settings = self.settings
                client = self.chroma_client()
                embedder = embedder_from_settings(settings)
                store = ChunkStore(client, settings.chroma_collection, embedder, sentences=settings.sentence_vectors)
                self._flat = dict(build_flat_retrievers(store, settings, self.schema))
            return cast("dict[str, FlatRetriever]", self._flat)

    def warm(self, mode: str = DEFAULT_MODE) -> list[WarmStep]:
        """Build, before the first question waits for it, what `mode` and the answerer read: the name index, the
        chunk cache, the PPR snapshot and walk graph, the flat index (BM25 and the dense matrix), the embedding
        session, the NER pipeline, the answerer, then, unless an LLM is configured, one question through `mode`
        (Neo4j plans its statements, the mode builds its alignments). Each step is timed and logged; a failed step
        is recorded in `warmup` and the others still run. The API runs it at startup in a thread (GET /health/ready
        says `warming` meanwhile), an eval before timing."""
        spec = MODES.get(mode)
        if spec is None:
            raise UnknownModeError(f"unknown retrieval mode {mode!r}; known modes: {', '.join(MODES)}")
        self.warmup.begin()
        try:
            for name, step in self._warm_steps(spec):
                if self.warmup.cancelled:
                    break
                self.warmup.run(name, step)
        finally:
            self.warmup.finish()
        return self.warmup.steps

    def _warm_steps(self, spec: ModeSpec) -> list[tuple[str, Callable[[], object]]]:
        from graphwire.core.clients.embeddings import embedder_from_settings
        from graphwire.core.nlp import ner_docs

        graph = self.graph is not None
        settings = self.settings
        steps: list[tuple[str, Callable[[], object]]] = []
        if graph:
            steps += [
                ("name_index", lambda: self.services().names.get()),
                ("chunk_cache", lambda: self.services().chunks.warm()),
                ("ppr_snapshot", lambda: self.services().snapshots.snapshot()),
            ]
        if spec.needs_chroma:
            steps += [
                ("flat_index", self._warm_flat_index),
                # two texts: the session that embeds a request's texts side by side is loaded too
                ("embeddings", lambda: embedder_from_settings(settings).embed_queries([WARM_TEXT, WARM_TEXT])),
            ]
        if settings.answer_check or not settings.llm_configured:  # the checker's and the extractive answerer's NER
            steps.append(("nlp", lambda: ner_docs([WARM_TEXT])))
        steps.append(("answerer", lambda: self.answerer(AnswererName.AUTO)))
        if graph or not spec.needs_graph:
            steps += [("mode", lambda: self.retriever(spec.name)), ("ppr_walk", lambda: self._warm_walks(spec.name))]
            if not settings.llm_configured:  # with an LLM, stage 1 and the answerer would call it at every start
                steps.append(("question", lambda: self._warm_question(spec.name)))
        return steps

    def _warm_flat_index(self) -> int:
        """The flat retrievers' shared index (BM25 and the dense matrix) of the store; its chunk count."""
        from graphwire.retrieval.flat.plus import FlatPlusRetriever

        plus = self.flat_retrievers()["flat_plus"]
        if not isinstance(plus, FlatPlusRetriever):
            raise TypeError("flat_plus is not a FlatPlusRetriever")
        return len(plus.index.snapshot())

    def _warm_walks(self, mode: str) -> int:
        """The walk graph of every PPR retriever `mode` holds (itself, or joint's); how many."""
        from graphwire.retrieval.ppr.retriever import PPRRetriever

        retriever = self.retriever(mode)
        walkers = [r for r in (retriever, getattr(retriever, "ppr", None)) if isinstance(r, PPRRetriever)]
        for walker in walkers:
            walker.walk()
        return len(walkers)

    def _warm_question(self, mode: str) -> int:
        """Questions naming the graph's two most mentioned entities, one of them with a relation's cue word and one
        with a year (so the graph stage runs its pair, relation-hop and date-window statements too), retrieved by
        `mode` and answered by the extractive answerer (the step is left out when an LLM is configured: no LLM call
        at startup); how many."""
        first, second, cue = "the company", "the board", "works"
        if self.graph is not None:
            nodes = sorted(self.services().names.get().nodes.values(), key=lambda node: -node.mentions)
            first, second = [node.name for node in nodes[:2]] + [first, second][len(nodes[:2]) :]
        words = [c for cues in self.schema.relation_cues.values() for c in cues if c.replace(" ", "").isalpha()]
        cue = words[0] if words else cue
        questions = [
            f"Who is {first}?",
            f"Who is the {cue} of {second}, and how is {first} linked to {second}?",
            f"What did {first} say in 2023?",  # a date: the statements' plans for date windows
        ]
        for question in questions:
            result = self.retriever(mode).retrieve(question, top_k=10)
            self.answerer(AnswererName.AUTO).answer(question, result)
        return len(questions)

    def refresh(self) -> None:
        """This process changed the stores (an API document job or delete): every cache checks its version marker
        on its next use, so the next query sees the change instead of waiting out the check intervals."""
        if self.parent is not None:
            self.parent.refresh()
            return
        with self._lock:
            services = cast("GraphServices", self._services[1]) if self._services is not None else None
            flat = list((self._flat or {}).values())
        if services is not None:
            services.version.expire()
        for retriever in flat:
            index = getattr(retriever, "index", None)
            if index is not None:
                index.expire()

    def answerer(self, name: str | AnswererName) -> Answerer:
        """Answerer `name` of this context's settings, built once (UnknownModeError when it cannot be built), its
        answers checked against the evidence unless ANSWER_CHECK is off (`retrieval.answer.checked`)."""
        if self.parent is not None:
            return self.parent.answerer(name)
        choice = AnswererName(name)
        with self._lock:
            if choice.value not in self._answerers:
                built = build_answerer(choice, self.settings, self._passage_entities())
                self._answerers[choice.value] = checking(built, self.settings)
            return self._answerers[choice.value]

    def _passage_entities(self) -> PassageEntities | None:
        """The graph's mentions of retrieved chunks, from the shared PPR snapshot (None without a graph)."""
        if self.graph is None:
            return None
        from graphwire.retrieval.answer.subjects import SnapshotEntities

        return SnapshotEntities(lambda: self.services().snapshots)

    def retriever(self, name: str) -> Retriever:
        """Mode `name`, built on first use and kept; rebuilt when the graph object changes."""
        spec = MODES.get(name)
        if spec is None:
            raise UnknownModeError(f"unknown retrieval mode {name!r}; known modes: {', '.join(MODES)}")
        graph_id = id(self.require_graph()) if spec.needs_graph else 0
        with self._lock:  # re-entrant: a factory may ask for another mode (hybrid -> graph)
            cached = self._built.get(name)
            if cached is not None and cached[0] == graph_id:
                return cached[1]
            retriever = spec.load()(self)
            self._built[name] = (graph_id, retriever)
            return retriever


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
        ModeSpec("joint", "the default: flat+ guided by the five-stage graph's facts, or, when the question names a title entity, fused with PageRank walks from its entities and its closest passages and with the pages its first passage links to; the graph's facts kept", "graphwire.retrieval.joint:joint_mode", needs_graph=True, needs_chroma=True),  # noqa: E501
        ModeSpec("graph", "five-stage deterministic graph retriever (KEY/BRIDGE/DIRECT facts)", "graphwire.retrieval.fill:graph_mode", needs_graph=True),  # noqa: E501
        ModeSpec("ppr", "Personalized PageRank over entities, facts and passages (HippoRAG 2 / FastGraphRAG)", "graphwire.retrieval.ppr.mode:ppr_mode", needs_graph=True),  # noqa: E501
        ModeSpec("vector", "ChromaDB top-k over the chunks (the vector baseline)", "graphwire.retrieval.flat.modes:vector_mode", needs_chroma=True),  # noqa: E501
        ModeSpec("bm25", "BM25 over the same chunks", "graphwire.retrieval.flat.modes:bm25_mode", needs_chroma=True),
        ModeSpec("fused", "reciprocal-rank fusion of vector and BM25", "graphwire.retrieval.flat.modes:fused_mode", needs_chroma=True),  # noqa: E501
        ModeSpec("flat_plus", "fused + named outlets, dates, one pick per outlet and claim", "graphwire.retrieval.flat.modes:flat_plus_mode", needs_chroma=True),  # noqa: E501
        ModeSpec("hybrid", "graph-guided flat search: the graph's chunk ranking fused into flat+", "graphwire.retrieval.hybrid:hybrid_mode", needs_graph=True, needs_chroma=True),  # noqa: E501
        ModeSpec("auto", "router: picks graph, vector, hybrid or ppr from question features and says why", "graphwire.retrieval.router:auto_mode", needs_graph=True),  # noqa: E501
    )
}  # fmt: skip


def check_modes(names: Iterable[str]) -> None:
    """Raise unless `names` are exactly RetrievalMode's values, which the settings naming a mode are checked against."""
    registered, declared = set(names), {mode.value for mode in RetrievalMode}
    if registered != declared:
        raise RuntimeError(
            f"MODES and RetrievalMode (core/settings.py) differ: only registered {sorted(registered - declared)}, "
            f"only declared {sorted(declared - registered)}"
        )


check_modes(MODES)


def mode_names() -> list[str]:
    return list(MODES)


# The registered modes as an enum (the `mode` field of the API's requests, published in its OpenAPI schema). Built
# from MODES, so a mode added there is accepted and documented; to the type checker it is a str (which its members
# are).
if TYPE_CHECKING:
    ModeName = str
else:
    ModeName = StrEnum("ModeName", {name: name for name in MODES})


def build_retriever(name: str, ctx: RetrievalContext) -> Retriever:
    """Mode `name` of this context (built once per context, see `RetrievalContext.retriever`)."""
    return ctx.retriever(name)


@dataclass
class RetrieverPool:
    """The modes of one context by name: every pool over the same context hands out the same instances."""

    ctx: RetrievalContext

    def get(self, name: str) -> Retriever:
        return self.ctx.retriever(name)


class AnswererName(StrEnum):
    AUTO = "auto"  # the LLM when one is configured, else extractive
    EXTRACTIVE = "extractive"
    LLM = "llm"


def build_answerer(name: str | AnswererName, settings: Settings, entities: PassageEntities | None = None) -> Answerer:
    """`entities`: the graph's mentions of retrieved chunks, for the extractive answerer's entity answers."""
    choice = AnswererName(name)
    if choice is AnswererName.AUTO:
        choice = AnswererName.LLM if settings.llm_configured else AnswererName.EXTRACTIVE
    if choice is AnswererName.EXTRACTIVE:
        from graphwire.core.schema import configured_schema
        from graphwire.retrieval.answer.extractive import ExtractiveAnswerer

        return ExtractiveAnswerer(schema=configured_schema(settings), entities=entities)
    if not settings.llm_configured:
        raise UnknownModeError("answerer 'llm' needs LLM_BASE_URL and LLM_MODEL; use 'extractive' or 'auto'")
    from graphwire.retrieval.answer.llm import LLMAnswerer

    return LLMAnswerer(settings)


def checking(answerer: Answerer, settings: Settings) -> Answerer:
    """`answerer` with answer checking (ANSWER_CHECK, ANSWER_DROP_UNSUPPORTED), the door every surface's answers go
    through; `answerer` itself when checking is off."""
    if not settings.answer_check:
        return answerer
    from graphwire.core.schema import configured_schema
    from graphwire.retrieval.answer.check_vocabulary import RelationVocabulary
    from graphwire.retrieval.answer.checked import CheckedAnswerer

    vocabulary = RelationVocabulary.of(configured_schema(settings))
    return CheckedAnswerer(answerer, vocabulary, drop_unsupported=settings.answer_drop_unsupported)
