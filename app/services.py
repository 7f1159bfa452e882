"""What a serving process holds for its whole life, built once from the settings: the Neo4j and Chroma providers, the
retrieval context (every mode, answerer and cache) and the document writes (jobs, their worker, deletes).

The HTTP API builds one in its lifespan (app/main.py) and `graphwire mcp` one for its stdio session
(app/mcp/stdio.py), so both surfaces serve from the same objects, built the same way.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from graphwire.app.feeds import FeedPoller
from graphwire.app.jobs.service import DocumentWrites
from graphwire.app.resources import ChromaProvider, GraphProvider, WorkspaceGraphs
from graphwire.core.auth.audit import AuditTrail, StoreAuditTrail
from graphwire.core.auth.store import SqlitePrincipalStore
from graphwire.core.settings import Settings, StartupWarmup
from graphwire.ingest.curation.service import Curation
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.retrieval.registry import RetrievalContext

log = logging.getLogger(__name__)
WARM_STOP_WAIT_S = 30.0  # longest stop() waits for the start-up warm-up's reads before closing the driver


@dataclass
class Services:
    settings: Settings
    graph_provider: GraphProvider
    chroma_provider: ChromaProvider
    retrieval: RetrievalContext
    document_writes: DocumentWrites
    curation: Curation  # graph edits by hand (ingest/curation/), the one door of /v1/graph/edits
    feeds: FeedPoller  # FEED_URLS polled into document jobs (started by the HTTP API when FEED_WATCH is on)
    exchange: GraphExchange  # export and import (ingest/exchange/), the one door of /v1/graph/export and /import
    audit: AuditTrail  # who wrote which document or graph edit (core/auth/audit.py), in the principal store
    _warmer: threading.Thread | None = field(default=None, init=False, repr=False)

    @classmethod
    def build(cls, settings: Settings) -> Services:
        """Nothing is connected yet: Neo4j and Chroma are opened on first use, so a process starts without them."""
        graphs = GraphProvider(settings, apply_schema_on_connect=settings.neo4j_apply_schema_on_start)
        chroma = ChromaProvider(settings)
        audit = StoreAuditTrail(SqlitePrincipalStore(settings.auth_store_path))  # the file is made on first write
        return cls._of(settings, graphs, chroma, audit)

    @classmethod
    def _of(cls, settings: Settings, graphs: GraphProvider, chroma: ChromaProvider, audit: AuditTrail) -> Services:
        graph = graphs.get  # the graph of settings.workspace
        retrieval = RetrievalContext(settings, graph=graph, chroma=chroma.get)
        writes = DocumentWrites.build(settings, graph, chroma.get, retrieval.refresh, audit)
        curation = Curation(settings, graph, retrieval.schema, on_change=retrieval.refresh)
        exchange = GraphExchange(settings, graph, retrieval.schema, on_change=retrieval.refresh)
        feeds = FeedPoller(settings, writes)
        return cls(settings, graphs, chroma, retrieval, writes, curation, feeds, exchange, audit)

    def in_workspace(self, workspace: str) -> Services:
        """The services of another workspace, on this process's Neo4j driver, Chroma client and audit trail: its own
        retrieval context, document jobs (worker started), graph edits and exchange; no feed watcher, no warm-up."""
        graphs = WorkspaceGraphs(self.graph_provider, workspace)
        other = Services._of(graphs.settings, graphs, self.chroma_provider, self.audit)
        other.document_writes.runner.start()
        return other

    def start(self) -> None:
        """Reach Neo4j once (the schema is applied early; being down is logged, never fatal), start the job worker
        and, unless STARTUP_WARMUP=off, the warm-up thread. Blocking: call it from a thread in async code."""
        try:
            info = self.graph_provider.ping()
            log.info("neo4j reachable", extra=info)
        except Exception as exc:
            log.warning("neo4j not reachable at start; /health reports it until it is", extra={"error": str(exc)})
        self.document_writes.runner.start()
        if self.settings.startup_warmup is StartupWarmup.OFF:
            log.info("startup warm-up off (STARTUP_WARMUP=off): the first questions build the indexes")
            return
        self.retrieval.warmup.begin()  # GET /health/ready says `warming` from now until the thread has finished
        self._warmer = threading.Thread(target=self._warm, name="graphwire-warm", daemon=True)
        self._warmer.start()

    def _warm(self) -> None:
        """Everything the default mode's first question reads (`RetrievalContext.warm`: a failed step is logged
        and the others run); the warm-up always finishes, so readiness never waits on it forever."""
        started = time.perf_counter()
        try:
            self.retrieval.warm()
        except Exception as exc:  # a cold cache costs the first questions a few reads, nothing more
            log.warning("retrieval caches not warmed at start", extra={"error": str(exc)})
        finally:
            self.retrieval.warmup.finish()
        summary = self.retrieval.warmup.summary()
        log.info(
            "warm-up finished",
            extra={"ms": round((time.perf_counter() - started) * 1000, 1), **summary},
        )

    def stop_workspace(self) -> None:
        """Stop what `in_workspace` started (its job worker); the driver is the serving process's."""
        self.document_writes.runner.stop()

    def stop(self) -> None:
        """Stop the feed watcher and the job worker (a running job stops at its next batch boundary) and close the
        Neo4j driver."""
        self.feeds.stop()
        self.document_writes.runner.stop()
        self.retrieval.warmup.cancel()  # the steps not started yet are skipped
        if self._warmer is not None:  # its reads must not share a connection the driver is closing
            self._warmer.join(timeout=WARM_STOP_WAIT_S)
        self.graph_provider.close()
        log.info("neo4j driver closed")
