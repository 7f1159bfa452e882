"""One cache shape for in-memory views of a store: a value rebuilt only when the store's version marker changes.

The name index, the PPR snapshot and the flat index are each expensive to build and cheap to check (a count-store
lookup, a revision marker), so each holds its value in a `Refreshing`: the marker is read at most every
`check_every_s` seconds (0: on every call) and the value is rebuilt only when the marker differs from the one it was
built at. Readers never see a half-built value.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from graphwire.core import metrics, tracing

# "never checked": not 0.0, since the monotonic clock starts near 0 at boot, and on a machine up for less than
# `check_every_s` a reset to 0.0 would still read as a fresh check (an expired cache went unchecked)
NEVER = float("-inf")
V = TypeVar("V")  # the version marker
T = TypeVar("T")  # the cached value


class Refreshing(Generic[V, T]):
    """`get()` returns the value built for the current version, rebuilding it when the version changed."""

    def __init__(
        self, version: Callable[[], V], build: Callable[[V], T], check_every_s: float = 5.0, name: str = "unnamed"
    ) -> None:
        self.name = name  # the `cache` label of its refresh metrics
        self._version_of = version
        self._build = build
        self.check_every_s = check_every_s
        self._value: T | None = None
        self._version: V | None = None
        self._checked_at = NEVER
        self._lock = threading.Lock()
        self.builds = 0
        self.last_build_ms = 0.0

    @property
    def current(self) -> T | None:
        """The value last built (None before the first `get`), without checking the version."""
        return self._value

    def get(self) -> T:
        value = self._value
        if value is not None and time.monotonic() - self._checked_at < self.check_every_s:
            return value
        with self._lock:
            value = self._value
            if value is not None and time.monotonic() - self._checked_at < self.check_every_s:
                return value
            version = self._version_of()
            if value is None or version != self._version:
                started = time.perf_counter()
                with tracing.span(f"cache refresh {self.name}"):
                    value = self._build(version)
                self.last_build_ms = (time.perf_counter() - started) * 1000
                metrics.CACHE_REFRESHES.labels(self.name).inc()
                metrics.CACHE_REFRESH_DURATION.labels(self.name).observe(self.last_build_ms / 1000)
                self.builds += 1
                self._value, self._version = value, version
            self._checked_at = time.monotonic()
            return value

    def expire(self) -> None:
        """Check the version marker on the next `get` (the value is rebuilt only if the marker changed)."""
        self._checked_at = NEVER

    def invalidate(self) -> None:
        """Forget the value: the next `get` rebuilds it."""
        with self._lock:
            self._value = None
            self._version = None


class Derived(Generic[T]):
    """A value made from other values (a restricted reader's view of a shared index), made again only when one of
    them is replaced (compared by identity: the shared values are rebuilt, never changed in place)."""

    def __init__(self, make: Callable[..., T]) -> None:
        self.make = make
        self._made: tuple[tuple[object, ...], T] | None = None
        self._lock = threading.Lock()

    def of(self, *sources: object) -> T:
        with self._lock:
            made = self._made
            if made is None or not _same(made[0], sources):
                made = self._made = (sources, self.make(*sources))
            return made[1]

    @property
    def current(self) -> T | None:
        """The value made last (None before the first `of`)."""
        return self._made[1] if self._made is not None else None


def _same(made_from: tuple[object, ...], sources: tuple[object, ...]) -> bool:
    """The same objects, in order."""
    return len(made_from) == len(sources) and all(a is b for a, b in zip(made_from, sources, strict=True))
