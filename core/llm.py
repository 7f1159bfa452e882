"""LLM access for every layer: chat model and raw client factories from Settings, retries, and usage accounting.

Any OpenAI-compatible endpoint works (OpenAI, Ollama, vLLM, LM Studio): set LLM_BASE_URL and LLM_MODEL (and
LLM_API_KEY where the server wants one). The clients themselves never retry (`max_retries=0`); `with_retries` does,
so every caller gets the same policy: exponential backoff from LLM_BACKOFF_BASE_S (doubling, capped at
LLM_BACKOFF_MAX_S) on timeouts, connection errors, HTTP 429 and 5xx, honouring a 429's Retry-After header (capped at
LLM_BACKOFF_MAX_S), at most LLM_MAX_RETRIES retries. Other errors (400, 401, 404) fail at once.

`UsageCounter` collects calls and prompt/completion tokens from every client built with it; callers read
`counter.snapshot()` (or diff two snapshots around a piece of work).

`LLMClient.chat` is the blocking call (ingest, eval, CLI); `LLMClient.achat` the awaitable one for the API: run it in
an asyncio task and cancel the task (deadline passed, client gone) and its HTTP connection is closed, which stops the
generation on servers that watch for it (llama.cpp does). Both accept a `timeout_s` below LLM_TIMEOUT_S, so a caller
with a deadline never waits past it, and neither retries when the next attempt could not finish in time.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import json_repair
import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel

from graphwire.core.deadline import Deadline
from graphwire.core.settings import LLMExtractionMode, Settings

T = TypeVar("T")
PLACEHOLDER_API_KEY = "not-needed"  # local servers (Ollama, vLLM) ignore the key, but the client requires one
RETRYABLE: tuple[type[Exception], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)
EXTRACTION_MODES = tuple(mode.value for mode in LLMExtractionMode)
DEFAULT_MAX_TOKENS = 512  # completion cap of a call that names none (and LLM_MAX_TOKENS unset): every call has an end
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$")


class LLMNotConfigured(RuntimeError):
    """LLM_BASE_URL and LLM_MODEL are needed for this code path."""


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


def _record(usage: UsageSnapshot) -> None:
    if (calls := _CALLS.get()) is not None:
        calls.append(usage)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0

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


def require_llm(settings: Settings) -> tuple[str, str]:
    if not (settings.llm_base_url and settings.llm_model):
        raise LLMNotConfigured("set LLM_BASE_URL and LLM_MODEL to use an LLM (see docs/llm.md)")
    return settings.llm_base_url, settings.llm_model


def _api_key(settings: Settings) -> str:
    return settings.llm_api_key.get_secret_value() if settings.llm_api_key else PLACEHOLDER_API_KEY


class ChatOptions(BaseModel):
    """What one call asks for beyond the messages: structured output, tools, a completion cap."""

    response_format: dict[str, Any] | None = None  # {"type": "json_object"} or {"type": "json_schema", ...}
    tools: list[dict[str, Any]] | None = None
    tool_choice: dict[str, Any] | str | None = None
    max_tokens: int | None = None  # None = LLM_MAX_TOKENS, else DEFAULT_MAX_TOKENS


class ChatReply(BaseModel):
    text: str
    tool_arguments: str | None = None  # the first tool call's arguments, as the model wrote them
    finish_reason: str | None = None  # "length" when the completion cap cut the reply
    attempts: int
    usage: UsageSnapshot
    elapsed_s: float = 0.0  # wall time of the whole call, retries included


class LLMClient:
    """The `openai` client with the retry policy and usage accounting; blocking (`chat`) and awaitable (`achat`)."""

    def __init__(self, settings: Settings, usage: UsageCounter | None = None) -> None:
        base_url, self.model = require_llm(settings)
        self.settings = settings
        self.usage = usage or UsageCounter()
        self.policy = RetryPolicy.from_settings(settings)
        self.client = openai.OpenAI(
            base_url=base_url, api_key=_api_key(settings), timeout=settings.llm_timeout_s, max_retries=0
        )

    @property
    def name(self) -> str:
        return f"llm:{self.model}"

    def chat(
        self,
        messages: Sequence[dict[str, str]],
        *,
        json_mode: bool = False,
        options: ChatOptions | None = None,
        deadline: Deadline | None = None,
    ) -> ChatReply:
        """One chat completion (retried per policy) with the usage of this call alone (retries included). Each
        attempt waits at most LLM_TIMEOUT_S, and never past `deadline`.

        Raises `RetriesExhausted` or the non-retryable `openai.APIError`."""
        request = self._request(messages, json_mode, options)
        call_usage = UsageCounter()
        started = time.perf_counter()

        # A client of this call's own, closed when it ends: an attempt that timed out leaves no pooled connection
        # open, so the server sees the hang-up and stops generating (llama.cpp does).
        with openai.OpenAI(base_url=str(self.client.base_url), api_key=self.client.api_key, max_retries=0) as client:

            def once() -> ChatCompletion:
                timeout = self._timeout(deadline)
                return self._counted(call_usage, lambda: client.chat.completions.create(**request, timeout=timeout))

            try:
                response, attempts = with_retries(once, self.policy, deadline=deadline)
            finally:
                _record(call_usage.snapshot())
        return _reply(response, attempts, call_usage, time.perf_counter() - started)

    async def achat(
        self,
        messages: Sequence[dict[str, str]],
        *,
        options: ChatOptions | None = None,
        deadline: Deadline | None = None,
    ) -> ChatReply:
        """`chat` as a coroutine. Cancel the task that awaits it and the request is abandoned: its connection is
        closed, so the server can stop generating."""
        request = self._request(messages, False, options)
        call_usage = UsageCounter()
        started = time.perf_counter()
        async with openai.AsyncOpenAI(
            base_url=str(self.client.base_url), api_key=self.client.api_key, max_retries=0
        ) as client:

            async def once() -> ChatCompletion:
                timeout = self._timeout(deadline)
                try:
                    response = await client.chat.completions.create(**request, timeout=timeout)
                except openai.APIError:
                    self._count_failure(call_usage)
                    raise
                self._count_success(call_usage, response)
                return response

            try:
                response, attempts = await with_retries_async(once, self.policy, deadline=deadline)
            finally:
                _record(call_usage.snapshot())
        return _reply(response, attempts, call_usage, time.perf_counter() - started)

    def _request(
        self, messages: Sequence[dict[str, str]], json_mode: bool, options: ChatOptions | None
    ) -> dict[str, Any]:
        options = options or ChatOptions()
        request: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": self.settings.llm_temperature,
        }
        request["max_tokens"] = options.max_tokens or self.settings.llm_max_tokens or DEFAULT_MAX_TOKENS
        if json_mode:
            request["response_format"] = {"type": "json_object"}
        for key in ("response_format", "tools", "tool_choice"):
            if (value := getattr(options, key)) is not None:
                request[key] = value
        return request

    def _timeout(self, deadline: Deadline | None) -> float:
        return deadline.cap(self.settings.llm_timeout_s) if deadline is not None else self.settings.llm_timeout_s

    def _counted(self, call_usage: UsageCounter, call: Callable[[], ChatCompletion]) -> ChatCompletion:
        try:
            response = call()
        except openai.APIError:
            self._count_failure(call_usage)
            raise
        self._count_success(call_usage, response)
        return response

    def _count_failure(self, call_usage: UsageCounter) -> None:
        for counter in (self.usage, call_usage):
            counter.add_failure()

    def _count_success(self, call_usage: UsageCounter, response: ChatCompletion) -> None:
        tokens = response.usage
        for counter in (self.usage, call_usage):
            counter.add(tokens.prompt_tokens if tokens else 0, tokens.completion_tokens if tokens else 0)


def _reply(response: ChatCompletion, attempts: int, call_usage: UsageCounter, elapsed_s: float) -> ChatReply:
    choice = response.choices[0] if response.choices else None
    message = choice.message if choice else None
    tool_calls = (message.tool_calls if message else None) or []
    function = getattr(tool_calls[0], "function", None) if tool_calls else None
    return ChatReply(
        text=(message.content or "") if message else "",
        tool_arguments=function.arguments if function is not None else None,
        finish_reason=choice.finish_reason if choice else None,
        attempts=attempts,
        usage=call_usage.snapshot(),
        elapsed_s=elapsed_s,
    )


def parse_json_lenient(text: str) -> dict[str, Any] | list[Any] | None:
    """Parse model output as JSON, repairing what local models often get wrong; None when nothing is recoverable.

    Handles code fences, prose around the JSON, trailing commas, single quotes and truncated arrays/objects
    (the `json-repair` package, which LLMGraphTransformer's prompt-and-parse path also uses).
    """
    stripped = _FENCE.sub("", text).strip()
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        value = json_repair.loads(stripped)
    return value if isinstance(value, dict | list) else None
