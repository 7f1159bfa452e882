"""Per-stage wall times for `RetrievalResult.timings_ms`, shared by every retriever."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from graphwire.core import tracing


class StageTimer:
    """Collects per-stage wall times in milliseconds; `finish()` adds the total since construction."""

    def __init__(self) -> None:
        self.timings_ms: dict[str, float] = {}
        self._started = time.perf_counter()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            with tracing.span(f"stage {name}", {"graphwire.stage": name}):
                yield
        finally:
            self.timings_ms[name] = self.timings_ms.get(name, 0.0) + (time.perf_counter() - started) * 1000

    def finish(self) -> dict[str, float]:
        self.timings_ms["total"] = (time.perf_counter() - self._started) * 1000
        return {name: round(ms, 3) for name, ms in self.timings_ms.items()}
