"""Connections the API holds for its whole life, opened lazily so the app starts (and recovers) without Neo4j."""

from __future__ import annotations

import logging
import threading
from typing import Any

from neo4j.exceptions import AuthError

from graphwire.core.clients.chroma import open_client
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema

log = logging.getLogger(__name__)


class Neo4jNotConfiguredError(RuntimeError):
    """Neo4j cannot even be tried: no password is configured and no local password file exists."""


class GraphProvider:
    """Hands out one shared `Graph`; creates it on first use and re-creates it after an authentication failure.

    The graph is `Graph.serving`: while Neo4j is down its circuit breaker answers at once (503), and it lets a probe
    through every API_NEO4J_BREAKER_S, so a Neo4j restart needs no API restart. The schema (constraints, indexes) is
    applied once, the first time the server is reached.
    """

    def __init__(self, settings: Settings, apply_schema_on_connect: bool = True) -> None:
        self.settings = settings
        self._apply_schema = apply_schema_on_connect
        self._graph: Graph | None = None
        self._schema_ready = False
        self._lock = threading.Lock()

    def get(self) -> Graph:
        with self._lock:
            if self._graph is None:
                try:
                    self._graph = Graph.serving(self.settings)
                except RuntimeError as exc:  # no NEO4J_PASSWORD and no password file yet
                    raise Neo4jNotConfiguredError(str(exc)) from exc
            graph = self._graph
        if self._apply_schema and not self._schema_ready:
            self._ensure_schema(graph)
        return graph

    def _ensure_schema(self, graph: Graph) -> None:
        with self._lock:
            if self._schema_ready:
                return
            # Fail fast while the server is down: apply_schema's writes would be retried for seconds.
            self._guard_auth(graph.ping)
            applied = self._guard_auth(lambda: apply_schema(graph))
            self._schema_ready = True
            log.info("schema applied", extra={"statements": len(applied)})

    @property
    def schema_applied(self) -> bool:
        """The schema was applied since this process first reached Neo4j (or applying it is off: someone else does)."""
        return self._schema_ready or not self._apply_schema

    def breaker_state(self) -> str:
        """The serving graph's breaker: closed, open (Neo4j found unreachable) or half_open (the next call probes)."""
        graph = self._graph
        return graph.breaker.state if graph is not None and graph.breaker is not None else "closed"

    def ping(self) -> dict[str, Any]:
        """Reach the server (raises when it is down) and return what it says about itself."""
        graph = self.get()
        info = self._guard_auth(graph.server_info)
        return {"address": f"{info.address[0]}:{info.address[1]}", "agent": info.agent}

    def _guard_auth(self, call: Any) -> Any:
        try:
            return call()
        except AuthError:
            self.reset()  # the password may have changed (new local server): read it again next time
            raise

    def reset(self) -> None:
        with self._lock:
            graph, self._graph, self._schema_ready = self._graph, None, False
        if graph is not None:
            graph.close()

    def close(self) -> None:
        self.reset()


class WorkspaceGraphs(GraphProvider):
    """Another workspace's graph over a provider's driver: the same connection, schema, breaker and recovery, its
    statements reading and writing `workspace` (core/workspaces.py)."""

    def __init__(self, base: GraphProvider, workspace: str) -> None:  # the base provider's state, not its own
        self.base = base
        self.workspace = workspace
        self.settings = base.settings.for_workspace(workspace)

    def get(self) -> Graph:
        return self.base.get().in_workspace(self.workspace)

    @property
    def schema_applied(self) -> bool:
        return self.base.schema_applied

    def breaker_state(self) -> str:
        return self.base.breaker_state()

    def ping(self) -> dict[str, Any]:
        return self.base.ping()

    def reset(self) -> None:
        self.base.reset()

    def close(self) -> None:
        """Nothing: the driver is the base provider's."""


class ChromaProvider:
    """One Chroma client (persistent folder or HTTP server), opened on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._client: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = open_client(self.settings)
            return self._client

    def ping(self) -> dict[str, Any]:
        client = self.get()
        heartbeat_ns = client.heartbeat()
        where = f"http://{self.settings.chroma_host}:{self.settings.chroma_port}" if self.settings.chroma_host else None
        return {"heartbeat_ns": heartbeat_ns, "location": where or str(self.settings.chroma_path)}
