"""LLM usage accounting: `UsageCounter` collects calls and prompt/completion tokens from every client built with it;
callers read `counter.snapshot()` (or diff two snapshots around a piece of work). `counting_calls` collects the usage of
every call made inside one context (one API request's alias call and answer together)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic import BaseModel


class UsageSnapshot(BaseModel):
    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __sub__(self, other: UsageSnapshot) -> UsageSnapshot:
        return UsageSnapshot(
            calls=self.calls - other.calls,
            failed_calls=self.failed_calls - other.failed_calls,
            prompt_tokens=self.prompt_tokens - other.prompt_tokens,
            completion_tokens=self.completion_tokens - other.completion_tokens,
        )


class UsageCounter:
    """Thread-safe totals: successful calls, failed calls (each retried attempt counts), and tokens."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals = UsageSnapshot()

    def add(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self._totals.calls += 1
            self._totals.prompt_tokens += prompt_tokens
            self._totals.completion_tokens += completion_tokens

    def add_failure(self) -> None:
        with self._lock:
            self._totals.failed_calls += 1

    def snapshot(self) -> UsageSnapshot:
        with self._lock:
            return self._totals.model_copy()

    # Read-only views of the totals, so callers can treat a counter like a snapshot (`extractor.usage.calls`).
    @property
    def calls(self) -> int:
        return self.snapshot().calls

    @property
    def failed_calls(self) -> int:
        return self.snapshot().failed_calls

    @property
    def prompt_tokens(self) -> int:
        return self.snapshot().prompt_tokens

    @property
    def completion_tokens(self) -> int:
        return self.snapshot().completion_tokens

    @property
    def total_tokens(self) -> int:
        return self.snapshot().total_tokens


_CALLS: ContextVar[list[UsageSnapshot] | None] = ContextVar("graphwire_llm_calls", default=None)


@contextmanager
def counting_calls() -> Iterator[list[UsageSnapshot]]:
    """Collect the usage of every LLM call made in this context, in worker threads started from it with a copy of
    it (Starlette's thread pool) and in asyncio tasks created in it: one request's alias call and answer together."""
    calls: list[UsageSnapshot] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)


def record_call(usage: UsageSnapshot) -> None:
    if (calls := _CALLS.get()) is not None:
        calls.append(usage)
