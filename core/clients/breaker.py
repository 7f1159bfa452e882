"""A short-lived circuit breaker for Neo4j: once the server is found unreachable, calls fail at once for a while.

The API's graph goes through one (`Graph.serving`): while Neo4j is down, a request answers 503 immediately instead
of each one waiting out the driver's retries. After `open_s` one call is let through as a probe; when it reaches the
server the breaker closes again, so a restarted Neo4j is used without restarting the API.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal, TypeVar

from neo4j.exceptions import DatabaseUnavailable, ServiceUnavailable, SessionExpired

from graphwire.core import metrics

T = TypeVar("T")
UNREACHABLE = (ServiceUnavailable, SessionExpired, DatabaseUnavailable)  # the last: a server shutting down
State = Literal["closed", "open", "half_open"]


class CircuitOpenError(ServiceUnavailable):
    """Neo4j was unreachable moments ago: this call was not tried. `retry_after_s` says when the next probe goes."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class CircuitBreaker:
    def __init__(self, open_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.open_s = open_s
        self._clock = clock
        self._opened_at: float | None = None
        self._probing = False
        self._reason = ""
        self._lock = threading.Lock()
        # The gauge describes the process's serving breaker, and a new one starts closed: an app built again in the
        # same process (the tests build many) does not report the open breaker of one that is gone.
        metrics.BREAKER_OPEN.set(0)

    def call(self, fn: Callable[[], T]) -> T:
        """Run `fn` unless the breaker is open; an unreachable server opens it, any other outcome closes it."""
        self._admit()
        try:
            result = fn()
        except UNREACHABLE as exc:
            self._trip(exc)
            raise
        except BaseException:
            self._close()  # the server answered (a Cypher error, a timeout): it is reachable
            raise
        self._close()
        return result

    @property
    def state(self) -> State:
        with self._lock:
            if self._opened_at is None:
                return "closed"
            return "half_open" if self._remaining() <= 0 else "open"

    def _remaining(self) -> float:
        assert self._opened_at is not None
        return self.open_s - (self._clock() - self._opened_at)

    def _admit(self) -> None:
        with self._lock:
            if self._opened_at is None:
                return
            remaining = self._remaining()
            if remaining > 0 or self._probing:
                wait = max(remaining, 0.0)
                raise CircuitOpenError(
                    f"Neo4j was unreachable {self.open_s - remaining:.1f} s ago ({self._reason})", wait
                )
            self._probing = True  # half open: this call is the probe, the others still fail fast

    def _trip(self, exc: BaseException) -> None:
        with self._lock:
            self._opened_at, self._probing = self._clock(), False
            self._reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        metrics.BREAKER_OPEN.set(1)
        metrics.BREAKER_TRIPS.inc()

    def _close(self) -> None:
        with self._lock:
            was_open, self._opened_at, self._probing = self._opened_at is not None, None, False
        if was_open:
            metrics.BREAKER_OPEN.set(0)
