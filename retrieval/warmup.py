"""The state of a retrieval context's warm-up (`RetrievalContext.warm` in retrieval/registry.py): its steps, each
timed and logged, a failed one recorded without stopping the others; read by GET /health/ready while it runs."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WarmStep:
    """One step of `RetrievalContext.warm`: how long it took and, when it failed, why."""

    name: str
    ms: float
    error: str | None = None


class Warmup:
    """Where a context's warm-up stands: idle (never asked), running, or finished (each step's outcome kept).
    Thread-safe: the warm-up runs in a thread of its own while GET /health/ready reads it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = "idle"
        self._current: str | None = None
        self._steps: list[WarmStep] = []
        self._cancelled = threading.Event()
        self._finished = threading.Event()

    def begin(self) -> None:
        """Mark it running (before its thread starts, so no probe sees it idle in between)."""
        with self._lock:
            if self._state != "running":
                self._state, self._current, self._steps = "running", None, []
                self._finished.clear()

    def cancel(self) -> None:
        """Skip the steps not started yet (the process is stopping)."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def run(self, name: str, step: Callable[[], object]) -> WarmStep:
        with self._lock:
            self._current = name
        started = time.perf_counter()
        error = None
        try:
            step()
        except Exception as exc:  # one cold cache costs the first question a little, never the others' warm-up
            error = f"{type(exc).__name__}: {exc}"
        outcome = WarmStep(name, round((time.perf_counter() - started) * 1000, 1), error)
        if error is None:
            log.info("warmed %s", name, extra={"step": name, "ms": outcome.ms})
        else:
            log.warning("warm-up step %s failed", name, extra={"step": name, "ms": outcome.ms, "error": error})
        with self._lock:
            self._steps.append(outcome)
            self._current = None
        return outcome

    def finish(self) -> None:
        with self._lock:
            self._state, self._current = "finished", None
        self._finished.set()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until it has finished (True) or `timeout_s` passed (False)."""
        return self._finished.wait(timeout_s)

    @property
    def running(self) -> bool:
        return self._state == "running"

    @property
    def finished(self) -> bool:
        return self._state == "finished"

    @property
    def current(self) -> str | None:
        return self._current

    @property
    def steps(self) -> list[WarmStep]:
        with self._lock:
            return list(self._steps)

    def summary(self) -> dict[str, Any]:
        """Each step's milliseconds, and the failed steps' errors (for /health/ready and the logs)."""
        steps = self.steps
        return {
            "state": self._state,
            "steps_ms": {s.name: s.ms for s in steps},
            "errors": {s.name: s.error for s in steps if s.error is not None},
        }
