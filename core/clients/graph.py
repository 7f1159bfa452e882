"""The Neo4j driver and the two ways graphwire talks to it: read transactions and retried write batches.

Every statement runs in a transaction of the kind it needs, READ or WRITE, never one left to the driver's default: with
a `neo4j://` URI to a cluster the routing driver sends reads to secondaries and writes to the leader. Every
transaction shares the driver's bookmark manager, so a read in this process sees the writes it committed before
(docs/scaling.md)."""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Literal, LiteralString, TypeVar, cast

from neo4j import (
    Driver,
    GraphDatabase,
    ManagedTransaction,
    NotificationDisabledClassification,
    Query,
    Result,
    RoutingControl,
    Session,
)
from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired, TransientError

from graphwire import cypher
from graphwire.core import metrics, tracing, workspaces
from graphwire.core.clients.breaker import CircuitBreaker
from graphwire.core.settings import Settings
from graphwire.core.workspaces import DEFAULT_WORKSPACE

RETRYABLE = (TransientError, ServiceUnavailable, SessionExpired)
MIN_PARALLEL_ROWS = 1000  # below this many rows per thread, one transaction is cheaper than two
T = TypeVar("T")
Access = Literal["READ", "WRITE"]  # a session's default_access_mode: neo4j.READ_ACCESS, neo4j.WRITE_ACCESS
READ: Access = "READ"
WRITE: Access = "WRITE"
ROUTING: dict[Access, RoutingControl] = {READ: RoutingControl.READ, WRITE: RoutingControl.WRITE}


def create_driver(settings: Settings, retry_s: float | None = None) -> Driver:
    """`retry_s`: how long a statement is retried on transient errors (default NEO4J_RETRY_S)."""
    return GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.resolved_neo4j_password()),
        connection_timeout=settings.neo4j_connect_timeout_s,
        connection_acquisition_timeout=settings.neo4j_connect_timeout_s,
        max_transaction_retry_time=settings.neo4j_retry_s if retry_s is None else retry_s,
        # Optional properties (a chunk's `locator`) are absent from stores that never set one: Neo4j then warns on
        # every read of them ("property key does not exist"), which would flood the log of a healthy service.
        notifications_disabled_classifications=[NotificationDisabledClassification.UNRECOGNIZED],
    )


class Graph:
    """A thin facade over the driver: statements are named files under cypher/, never strings built here.

    `catalogue` says where the named files are: the product's cypher/ folder unless another is given (the tests add
    their own statements in tests/support/cypher/). `breaker`, when given, makes every call fail at once while
    Neo4j was found unreachable moments ago (core/clients/breaker.py)."""

    def __init__(
        self,
        driver: Driver,
        database: str = "neo4j",
        timeout_s: float | None = None,
        catalogue: cypher.Catalogue = cypher.PRODUCT,
        breaker: CircuitBreaker | None = None,
        workspace: str = DEFAULT_WORKSPACE,
    ) -> None:
        """`workspace`: every statement gets it as `$workspace` unless its call names one (core/workspaces.py)."""
        self.driver = driver
        self.workspace = workspaces.checked(workspace)
        self.database = database
        self.timeout_s = timeout_s
        self.catalogue = catalogue
        self.breaker = breaker
        self._views: dict[str, Graph] = {}  # in_workspace's, one per workspace: caches key on the Graph object

    @classmethod
    def from_settings(cls, settings: Settings, catalogue: cypher.Catalogue = cypher.PRODUCT) -> Graph:
        driver = create_driver(settings)
        return cls(driver, settings.neo4j_database, settings.cypher_timeout_s, catalogue, workspace=settings.workspace)

    @classmethod
    def serving(cls, settings: Settings, catalogue: cypher.Catalogue = cypher.PRODUCT) -> Graph:
        """The API's graph: short retries (API_NEO4J_RETRY_S) and a circuit breaker (API_NEO4J_BREAKER_S), so a
        request answers 503 within about a second while Neo4j is down, and the first call after it is back works."""
        driver = create_driver(settings, retry_s=settings.api_neo4j_retry_s)
        breaker = CircuitBreaker(settings.api_neo4j_breaker_s)
        return cls(driver, settings.neo4j_database, settings.cypher_timeout_s, catalogue, breaker, settings.workspace)

    def in_workspace(self, workspace: str) -> Graph:
        """This graph's driver, breaker and catalogue, reading and writing `workspace` (closing either closes both)."""
        if workspace == self.workspace:
            return self
        view = self._views.get(workspace)
        if view is None:
            view = Graph(self.driver, self.database, self.timeout_s, self.catalogue, self.breaker, workspace)
            view = self._views.setdefault(workspace, view)
        return view

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        return params if "workspace" in params else {**params, "workspace": self.workspace}

    def _call(self, fn: Callable[[], T]) -> T:
        return fn() if self.breaker is None else self.breaker.call(fn)

    def _query(self, name: str) -> Query:
        return Query(cast(LiteralString, self.catalogue.query(name)), timeout=self.timeout_s)

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named statement in a read transaction and return its records as dicts."""
        return self._call(lambda: self._execute(name, params, READ))

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named statement in a write transaction (the driver retries transient errors)."""
        return self._call(lambda: self._execute(name, params, WRITE))

    def read_each(self, name: str, consume: Callable[[Result], T], **params: Any) -> T:
        """Run a named statement in a read transaction and hand its streamed result to `consume` (for a result too
        large to hold as dicts). The driver retries transient errors by calling `consume` again on a new result, so it
        must start from scratch each time. No CYPHER_TIMEOUT_S: the PPR snapshot export reads the whole graph."""

        def work(tx: ManagedTransaction) -> T:
            return consume(tx.run(cast(LiteralString, self.catalogue.query(name)), self._params(params)))

        def run() -> T:
            with self._statement(name, READ), self.session(READ) as session:
                return session.execute_read(work)

        return self._call(run)

    def _execute(self, name: str, params: dict[str, Any], access: Access) -> list[dict[str, Any]]:
        with self._statement(name, access):
            records, _, _ = self.driver.execute_query(
                self._query(name), self._params(params), database_=self.database, routing_=ROUTING[access]
            )
            return [r.data() for r in records]

    @contextmanager
    def _statement(self, name: str, access: Access) -> Iterator[None]:
        """Around every named statement this facade runs, with the kind of transaction it runs in (a test records
        them here: tests/integration/test_transaction_kinds.py)."""
        with observed(name):
            yield

    def write_once(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named statement once, in an auto-commit transaction: no retries, for a best-effort write whose caller
        tries again later or can do without it (the writer lease's renewal and release)."""

        def run() -> list[dict[str, Any]]:
            with self._statement(name, WRITE), self.session(WRITE) as session:
                return [r.data() for r in session.run(self._query(name), self._params(params))]

        return self._call(run)

    def write_batches(self, name: str, rows: Sequence[dict[str, Any]], batch_size: int = 500, threads: int = 1) -> int:
        """UNWIND-style writes: the statement receives `$rows`; each batch is its own retried transaction.

        With `threads` > 1 the batches run that many at a time (rows split in at least `threads` parts): Neo4j
        executes each transaction on one core, so two concurrent transactions use a second one. Only for statements
        whose batches cannot conflict on what they MERGE; the call returns, with the number of rows, when every batch
        is committed."""
        parts = math.ceil(len(rows) / batch_size)
        if threads > 1 and len(rows) >= threads * MIN_PARALLEL_ROWS:
            parts = math.ceil(parts / threads) * threads  # whole rounds: no thread left idle on a last batch
        size = math.ceil(len(rows) / parts) if parts else 0
        batches = [list(rows[start : start + size]) for start in range(0, len(rows), size)] if size else []
        if threads > 1 and len(batches) > 1:
            with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="graphwire-write") as pool:
                # each batch in a copy of this context, so its statement's span has the caller's as parent
                contexts = [contextvars.copy_context() for _ in batches]
                list(pool.map(lambda c, batch: c.run(lambda: self.write(name, rows=batch)), contexts, batches))
        else:
            for batch in batches:
                self.write(name, rows=batch)
        return len(rows)

    def ping(self) -> None:
        """Raise if Neo4j cannot be reached."""
        self._call(self.driver.verify_connectivity)

    def server_info(self) -> Any:
        """What the server says about itself (address, agent); raises when it cannot be reached."""
        return self._call(self.driver.get_server_info)

    @contextmanager
    def session(self, access: Access) -> Iterator[Session]:
        """A driver session whose transactions are of kind `access` (routed to a reader or the leader of a cluster)
        and which shares the bookmarks of `read` and `write`, so it sees what this process wrote before."""
        bookmarks = self.driver.execute_query_bookmark_manager
        with self.driver.session(
            database=self.database, default_access_mode=access, bookmark_manager=bookmarks
        ) as session:
            yield session

    def close(self) -> None:
        self.driver.close()


@contextmanager
def observed(name: str) -> Iterator[None]:
    """One statement's span (its cypher/ file name, never its parameters) and its latency and error metrics."""
    started = time.perf_counter()
    with tracing.span(f"cypher {name}", {"db.system.name": "neo4j", "db.query.summary": name}):
        try:
            yield
        except BaseException:
            metrics.CYPHER_ERRORS.labels(name).inc()
            raise
        finally:
            metrics.CYPHER_DURATION.labels(name).observe(time.perf_counter() - started)


__all__ = ["READ", "RETRYABLE", "WRITE", "Access", "Graph", "Neo4jError", "create_driver"]
