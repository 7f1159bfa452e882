"""The graph state every graph-backed mode shares, built once per process (per `Graph`) by `RetrievalContext`.

| what | object | refreshed when |
|---|---|---|
| change signal | `version: GraphVersion` | re-reads the graph fingerprint at most every PPR_SNAPSHOT_CHECK_S seconds |
| name and alias index (stage 1) | `names: NameIndexCache` | the fingerprint's entity/MENTIONS counts change |
| stage 1 analyses | `aliases: AliasStage` (LRU) | keyed by the name index version |
| tiered matcher (stage 2) | `matcher: TieredMatcher` | stateless (it searches the name index) |
| chunk records | `chunks: ChunkCache` (LRU) | never stale: a chunk id names one text forever |
| PPR snapshot and walk graphs | `snapshots: SnapshotCache` | the fingerprint changes |
| who may read what (document access) | `access: AccessMaps` | the fingerprint changes |
| a restricted reader's view (`scoped`) | `scope`, scoped `names` and `snapshots` | with the shared ones |
| the schema | `schema` | given (the settings' SCHEMA_PATH for `from_settings`) |

The graph, hybrid, ppr and auto modes all take these from one `GraphServices`, so one API process holds one name
index, one chunk cache and one PPR snapshot however many modes it serves.
"""

from __future__ import annotations

import copy

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings, default_of
from graphwire.retrieval.access import AccessMaps
from graphwire.retrieval.graph.aliases import AliasStage, LlmAliasFn
from graphwire.retrieval.graph.chunks import ChunkCache
from graphwire.retrieval.graph.filtering import prepare_chunk
from graphwire.retrieval.graph.matching import TieredMatcher
from graphwire.retrieval.graph.models import QuestionAnalysis
from graphwire.retrieval.graph.names import NameIndexCache, ScopedNames
from graphwire.retrieval.graph_version import GraphVersion
from graphwire.retrieval.models import EntityMatch
from graphwire.retrieval.ppr.export import ScopedSnapshots, SnapshotCache
from graphwire.retrieval.scope import Scope
from graphwire.schema.model import GraphSchema, load_schema


class GraphServices:
    def __init__(
        self,
        graph: Graph,
        schema: GraphSchema,
        llm_aliases: LlmAliasFn | None = None,
        check_every_s: float = default_of("ppr_snapshot_check_s"),
    ) -> None:
        """`schema`: whose roles and vocabulary the name index and the retrievers read; `check_every_s`: how often
        the change signal is re-read."""
        self.graph = graph
        self.schema = schema
        self.version = GraphVersion(graph, check_every_s=check_every_s)
        self.names = NameIndexCache(graph, schema, version=self.version)
        self.aliases = AliasStage(llm_aliases)
        self.matcher = TieredMatcher()
        self.chunks = ChunkCache(graph, prepare=prepare_chunk)  # every graph-reading mode's chunk texts
        self.snapshots = SnapshotCache(graph, version=self.version)
        self.access = AccessMaps(graph, self.version)  # read on a restricted reader's first question
        self.scope: Scope | None = None  # set on a restricted reader's view (`scoped`)

    def scoped(self, scope: Scope) -> GraphServices:
        """These services as a reader of only `scope` sees them (retrieval/scope.py): its own views of the PPR
        snapshot and the name index over the shared ones; the graph, version, chunk cache, stage 1 cache (keyed by
        the index version, which the view's differs in), matcher and access maps are shared."""
        view = copy.copy(self)
        view.scope = scope
        view.snapshots = ScopedSnapshots(self.snapshots, scope.chunks, scope.key)
        view.names = ScopedNames(self.names, view.snapshots, scope.hidden_sources)
        return view

    @classmethod
    def from_settings(cls, graph: Graph, settings: Settings) -> GraphServices:
        """With the LLM alias extractor in stage 1 when an LLM is configured."""
        llm_aliases = None
        if settings.llm_configured:
            from graphwire.retrieval.aliases.llm import LLMAliasExtractor

            llm_aliases = LLMAliasExtractor(settings)
        return cls(graph, load_schema(settings.schema_path), llm_aliases, settings.ppr_snapshot_check_s)

    def analyse(self, question: str) -> tuple[QuestionAnalysis, list[EntityMatch]]:
        """Stages 1-2: the question's analysis and its matched entities (scores 0-100)."""
        index = self.names.get()
        analysis = self.aliases.run(question, index)
        return analysis, self.matcher.match(analysis, index)
