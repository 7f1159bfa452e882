"""The Neo4j driver and the two ways graphwire talks to it: read transactions and retried write batches."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, LiteralString, cast

from neo4j import Driver, GraphDatabase, Query, RoutingControl
from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired, TransientError

from graphwire import cypher
from graphwire.core.settings import Settings

RETRYABLE = (TransientError, ServiceUnavailable, SessionExpired)
MIN_PARALLEL_ROWS = 1000  # below this many rows per thread, one transaction is cheaper than two


def create_driver(settings: Settings) -> Driver:
    return GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.resolved_neo4j_password()),
        connection_timeout=5.0,
        max_transaction_retry_time=15.0,
    )


class Graph:
    """A thin facade over the driver: statements are named files under cypher/, never strings built here.

    `catalogue` says where the named files are: the product's cypher/ folder unless another is given (the tests add
    their own statements in tests/support/cypher/)."""

    def __init__(
        self,
        driver: Driver,
        database: str = "neo4j",
        timeout_s: float | None = None,
        catalogue: cypher.Catalogue = cypher.PRODUCT,
    ) -> None:
        self.driver = driver
        self.database = database
        self.timeout_s = timeout_s
        self.catalogue = catalogue

    @classmethod
    def from_settings(cls, settings: Settings, catalogue: cypher.Catalogue = cypher.PRODUCT) -> Graph:
        return cls(create_driver(settings), settings.neo4j_database, settings.request_timeout_s, catalogue)

    def _query(self, name: str) -> Query:
        return Query(cast(LiteralString, self.catalogue.query(name)), timeout=self.timeout_s)

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named statement in a read transaction and return its records as dicts."""
        records, _, _ = self.driver.execute_query(
            self._query(name), params, database_=self.database, routing_=RoutingControl.READ
        )
        return [r.data() for r in records]

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named statement in a write transaction (the driver retries transient errors)."""
        records, _, _ = self.driver.execute_query(
            self._query(name), params, database_=self.database, routing_=RoutingControl.WRITE
        )
        return [r.data() for r in records]

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
                list(pool.map(lambda batch: self.write(name, rows=batch), batches))
        else:
            for batch in batches:
                self.write(name, rows=batch)
        return len(rows)

    def ping(self) -> None:
        """Raise if Neo4j cannot be reached."""
        self.driver.verify_connectivity()

    @contextmanager
    def session(self) -> Iterator[Any]:
        with self.driver.session(database=self.database) as session:
            yield session

    def close(self) -> None:
        self.driver.close()


__all__ = ["Graph", "Neo4jError", "RETRYABLE", "create_driver"]
