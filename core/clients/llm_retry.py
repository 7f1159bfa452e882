"""The one retry policy of every LLM call, blocking, awaitable or streamed (`core.llm.LLMClient`).

Exponential backoff from LLM_BACKOFF_BASE_S (doubling, capped at LLM_BACKOFF_MAX_S) on timeouts, connection errors,
HTTP 429 and 5xx, honouring a 429's Retry-After header (capped at LLM_BACKOFF_MAX_S), at most LLM_MAX_RETRIES retries.
Other errors (400, 401, 404) fail at once. No retry starts when its wait would reach the caller's deadline.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

import openai

from graphwire.core.deadline import Deadline
from graphwire.core.settings import Settings, default_of

T = TypeVar("T")
RETRYABLE: tuple[type[Exception], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = default_of("llm_max_retries")
    backoff_base_s: float = default_of("llm_backoff_base_s")
    backoff_max_s: float = default_of("llm_backoff_max_s")

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        return cls(settings.llm_max_retries, settings.llm_backoff_base_s, settings.llm_backoff_max_s)

    def wait_for(self, attempt: int, error: Exception) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): Retry-After if given, else backoff."""
        retry_after = retry_after_seconds(error)
        if retry_after is not None:
            return min(retry_after, self.backoff_max_s)
        backoff = self.backoff_base_s * (2 ** (attempt - 1))
        return min(backoff, self.backoff_max_s) * random.uniform(0.8, 1.0)


def retry_after_seconds(error: Exception) -> float | None:
    """The server's Retry-After (seconds or an HTTP date; `retry-after-ms` too) on an API error, if any."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class RetriesExhausted(RuntimeError):
    def __init__(self, attempts: int, last_error: Exception) -> None:
        super().__init__(f"{type(last_error).__name__} after {attempts} attempt(s): {last_error}")
        self.attempts = attempts
        self.last_error = last_error


def with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[int, Exception, float], None] | None = None,
    deadline: Deadline | None = None,
) -> tuple[T, int]:
    """Run `call`, retrying retryable API errors; returns (result, attempts). Raises `RetriesExhausted`, also when
    the wait before the next attempt would reach `deadline`."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return call(), attempt
        except RETRYABLE as exc:
            wait = _next_wait(policy, attempt, exc, deadline)
            if on_retry:
                on_retry(attempt, exc, wait)
            sleep(wait)


async def with_retries_async(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    deadline: Deadline | None = None,
) -> tuple[T, int]:
    """`with_retries` for a coroutine; cancelling the awaiting task cancels the attempt in flight."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call(), attempt
        except RETRYABLE as exc:
            await asyncio.sleep(_next_wait(policy, attempt, exc, deadline))


def _next_wait(policy: RetryPolicy, attempt: int, error: Exception, deadline: Deadline | None) -> float:
    if attempt > policy.max_retries:
        raise RetriesExhausted(attempt, error) from error
    wait = policy.wait_for(attempt, error)
    if deadline is not None and wait >= deadline.remaining():
        raise RetriesExhausted(attempt, error) from error
    return wait


LLM_FAILURES: tuple[type[Exception], ...] = (RetriesExhausted, openai.APIError)  # what a failed LLM call raises


def failure_reason(error: Exception) -> str:
    """A short reason for a failed LLM call, fit for an API client: the error's kind, its HTTP status and the attempts
    made, never the server's message (it may quote the prompt or name the provider's account)."""
    attempts = 1
    if isinstance(error, RetriesExhausted):
        attempts, error = error.attempts, error.last_error
    status = getattr(error, "status_code", None)
    kind = type(error).__name__ + (f" (HTTP {status})" if status else "")
    return f"{kind} after {attempts} attempt{'' if attempts == 1 else 's'}"
