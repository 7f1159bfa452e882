"""LLM access for every layer: chat model and raw client factories from Settings, retries, and usage accounting.

Any OpenAI-compatible endpoint works (OpenAI, Ollama, vLLM, LM Studio): set LLM_BASE_URL and LLM_MODEL (and
LLM_API_KEY where the server wants one). The clients themselves never retry (`max_retries=0`); `with_retries` does,
so every caller gets the same policy: exponential backoff from LLM_BACKOFF_BASE_S (doubling, capped at
LLM_BACKOFF_MAX_S) on timeouts, connection errors, HTTP 429 and 5xx, honouring a 429's Retry-After header (capped at
LLM_BACKOFF_MAX_S), at most LLM_MAX_RETRIES retries. Other errors (400, 401, 404) fail at once.

`UsageCounter` collects calls and prompt/completion tokens from every client built with it; callers read
`counter.snapshot()` (or diff two snapshots around a piece of work).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import json_repair
import openai
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from graphwire.core.settings import Settings

T = TypeVar("T")
PLACEHOLDER_API_KEY = "not-needed"  # local servers (Ollama, vLLM) ignore the key, but the client requires one
RETRYABLE: tuple[type[Exception], ...] = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)
EXTRACTION_MODES = ("tools", "json_schema", "prompt")
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


class UsageCallback(BaseCallbackHandler):
    """Feeds a `UsageCounter` from LangChain chat model runs."""

    def __init__(self, counter: UsageCounter) -> None:
        self.counter = counter

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        prompt, completion = _usage_from_result(response)
        self.counter.add(prompt, completion)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.counter.add_failure()


def _usage_from_result(response: LLMResult) -> tuple[int, int]:
    token_usage = (response.llm_output or {}).get("token_usage") or {}
    if token_usage:
        return int(token_usage.get("prompt_tokens") or 0), int(token_usage.get("completion_tokens") or 0)
    for generations in response.generations:
        for generation in generations:
            meta = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if meta:
                return int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0))
    return 0, 0


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
) -> tuple[T, int]:
    """Run `call`, retrying retryable API errors; returns (result, attempts). Raises `RetriesExhausted`."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return call(), attempt
        except RETRYABLE as exc:
            if attempt > policy.max_retries:
                raise RetriesExhausted(attempt, exc) from exc
            wait = policy.wait_for(attempt, exc)
            if on_retry:
                on_retry(attempt, exc, wait)
            sleep(wait)


def require_llm(settings: Settings) -> tuple[str, str]:
    if not (settings.llm_base_url and settings.llm_model):
        raise LLMNotConfigured("set LLM_BASE_URL and LLM_MODEL to use an LLM (see docs/llm.md)")
    return settings.llm_base_url, settings.llm_model


def _api_key(settings: Settings) -> str:
    return settings.llm_api_key.get_secret_value() if settings.llm_api_key else PLACEHOLDER_API_KEY


class ToolCallingChatOpenAI(ChatOpenAI):
    """ChatOpenAI whose structured output defaults to function calling.

    langchain-openai defaults `with_structured_output` to OpenAI's `json_schema` response format, which many
    OpenAI-compatible servers do not implement; tool calling is the widely supported path, and the one
    LLMGraphTransformer's own fallback parser reads (`tool_calls[0].function.arguments`).
    """

    def with_structured_output(self, schema: Any = None, *, method: Any = "function_calling", **kwargs: Any) -> Any:
        return super().with_structured_output(schema, method=method, **kwargs)


def chat_model(settings: Settings, usage: UsageCounter | None = None) -> ChatOpenAI:
    """A LangChain chat model for the configured endpoint; no client-side retries (see `with_retries`)."""
    base_url, model = require_llm(settings)
    if settings.llm_extraction_mode not in EXTRACTION_MODES:
        raise ValueError(f"LLM_EXTRACTION_MODE must be one of {EXTRACTION_MODES}, not {settings.llm_extraction_mode!r}")
    cls = ToolCallingChatOpenAI if settings.llm_extraction_mode == "tools" else ChatOpenAI
    return cls(
        base_url=base_url,
        api_key=_api_key(settings),  # type: ignore[arg-type]
        model=model,
        temperature=settings.llm_temperature,
        timeout=settings.llm_timeout_s,
        max_retries=0,
        max_tokens=settings.llm_max_tokens,  # type: ignore[call-arg]
        callbacks=[UsageCallback(usage)] if usage else None,
    )


class ChatReply(BaseModel):
    text: str
    attempts: int
    usage: UsageSnapshot


class LLMClient:
    """The raw `openai` client with the retry policy and usage accounting; returns the reply text."""

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

    def chat(self, messages: Sequence[dict[str, str]], *, json_mode: bool = False) -> ChatReply:
        """One chat completion (retried per policy) with the usage of this call alone (retries included).

        Raises `RetriesExhausted` or the non-retryable `openai.APIError`."""
        call_usage = UsageCounter()
        text, attempts = with_retries(lambda: self._chat_once(messages, json_mode, call_usage), self.policy)
        return ChatReply(text=text, attempts=attempts, usage=call_usage.snapshot())

    def _chat_once(self, messages: Sequence[dict[str, str]], json_mode: bool, call_usage: UsageCounter) -> str:
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        kwargs["temperature"] = self.settings.llm_temperature
        if self.settings.llm_max_tokens:
            kwargs["max_tokens"] = self.settings.llm_max_tokens
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = self.client.chat.completions.create(**kwargs)
        except openai.APIError:
            for counter in (self.usage, call_usage):
                counter.add_failure()
            raise
        tokens = response.usage
        for counter in (self.usage, call_usage):
            counter.add(tokens.prompt_tokens if tokens else 0, tokens.completion_tokens if tokens else 0)
        choice = response.choices[0] if response.choices else None
        return (choice.message.content or "") if choice else ""


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


class ProbeResult(BaseModel):
    base_url: str
    model: str
    chat_ok: bool = False
    tools_ok: bool = False
    latency_ms: float = 0.0
    error: str | None = None

    @property
    def recommended_mode(self) -> str:
        return "tools" if self.tools_ok else "prompt"


_PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "record_city",
        "description": "Record the city named in the text.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def probe(settings: Settings) -> ProbeResult:
    """Two tiny calls: can the endpoint chat, and does it answer a forced tool call? (`graphwire llm check`)"""
    base_url, model = require_llm(settings)
    result = ProbeResult(base_url=base_url, model=model)
    client = LLMClient(settings)
    started = time.perf_counter()
    try:
        client.chat([{"role": "user", "content": "Reply with the single word OK."}])
        result.chat_ok = True
        result.latency_ms = (time.perf_counter() - started) * 1000
        request: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "user", "content": "Paris is lovely in spring."}],
            "tools": [_PROBE_TOOL],
            "tool_choice": {"type": "function", "function": {"name": "record_city"}},
        }
        response, _ = with_retries(lambda: client.client.chat.completions.create(**request), client.policy)
        result.tools_ok = bool(response.choices and response.choices[0].message.tool_calls)
    except (RetriesExhausted, openai.APIError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    return result
