"""LLM access for every layer: the one client (`LLMClient`) every LLM call goes through, blocking, awaitable or
streamed, with one retry policy (`core.llm_retry`) and one usage accounting (`core.llm_usage`).

Any OpenAI-compatible endpoint works (OpenAI, Ollama, vLLM, LM Studio): set LLM_BASE_URL and LLM_MODEL (and
LLM_API_KEY where the server wants one). The `openai` clients themselves never retry (`max_retries=0`); the policy does.

`LLMClient.chat` is the blocking call (ingest, eval, CLI); `LLMClient.achat` the awaitable one for the API and
`LLMClient.astream` the streamed one (Server-Sent Events, chat completions): run them in an asyncio task and cancel the
task (deadline passed, client gone) and the HTTP connection is closed, which stops the generation on servers that watch
for it (llama.cpp does). All take a `deadline`: no attempt waits past it (each waits at most LLM_TIMEOUT_S), and no
retry starts when it could not finish in time.
"""

from __future__ import annotations

import functools
import json
import re
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import json_repair
import openai
from openai import AsyncStream
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from pydantic import BaseModel

from graphwire.core import metrics, tracing
from graphwire.core.clients.llm_retry import RetryPolicy, with_retries, with_retries_async
from graphwire.core.clients.llm_usage import UsageCounter, UsageSnapshot, record_call
from graphwire.core.deadline import Deadline
from graphwire.core.settings import LLMExtractionMode, Settings

PLACEHOLDER_API_KEY = "not-needed"  # local servers (Ollama, vLLM) ignore the key, but the client requires one
EXTRACTION_MODES = tuple(mode.value for mode in LLMExtractionMode)
DEFAULT_MAX_TOKENS = 512  # completion cap of a call that names none (and LLM_MAX_TOKENS unset): every call has an end
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$")


class LLMNotConfigured(RuntimeError):
    """LLM_BASE_URL and LLM_MODEL are needed for this code path."""


def require_llm(settings: Settings) -> tuple[str, str]:
    if not (settings.llm_base_url and settings.llm_model):
        raise LLMNotConfigured("set LLM_BASE_URL and LLM_MODEL to use an LLM (see docs/llm.md)")
    return settings.llm_base_url, settings.llm_model


def api_key(settings: Settings) -> str:
    """LLM_API_KEY, or a placeholder for local servers that ignore the key."""
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
    """The `openai` client with the retry policy and usage accounting: blocking (`chat`), awaitable (`achat`) and
    streamed (`astream`)."""

    def __init__(self, settings: Settings, usage: UsageCounter | None = None) -> None:
        base_url, self.model = require_llm(settings)
        self.settings = settings
        self.usage = usage or UsageCounter()
        self.policy = RetryPolicy.from_settings(settings)
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key(settings), timeout=settings.llm_timeout_s, max_retries=0
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
        with self._sync_client() as client, self._observed("chat", call_usage):

            def once() -> ChatCompletion:
                timeout = self._timeout(deadline)
                return self._counted(call_usage, lambda: client.chat.completions.create(**request, timeout=timeout))

            try:
                response, attempts = with_retries(once, self.policy, deadline=deadline)
            finally:
                record_call(call_usage.snapshot())
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
        async with self._async_client() as client:

            async def once() -> ChatCompletion:
                timeout = self._timeout(deadline)
                try:
                    response = await client.chat.completions.create(**request, timeout=timeout)
                except openai.APIError:
                    self._count_failure(call_usage)
                    raise
                self._count_success(call_usage, response.usage)
                return response

            try:
                with self._observed("chat", call_usage):
                    response, attempts = await with_retries_async(once, self.policy, deadline=deadline)
            finally:
                record_call(call_usage.snapshot())
        return _reply(response, attempts, call_usage, time.perf_counter() - started)

    async def astream(
        self,
        messages: Sequence[dict[str, str]],
        *,
        options: ChatOptions | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str | ChatReply]:
        """`achat` streamed: the reply's text pieces as the model writes them, then the whole `ChatReply`. Opening
        the stream is retried per policy; once the response has started, a failure ends it (pieces already out
        cannot be taken back). Stop consuming it (or cancel the consuming task) and the HTTP stream to the model is
        closed, so the server can stop generating.

        Raises `RetriesExhausted` or `openai.APIError` (a connection lost mid-stream as `openai.APIConnectionError`)."""
        request = self._request(messages, False, options)
        call_usage = UsageCounter()
        started = time.perf_counter()
        async with self._async_client() as client:

            async def opened() -> AsyncStream[ChatCompletionChunk]:
                timeout = self._timeout(deadline)
                try:
                    return await client.chat.completions.create(
                        **request, stream=True, stream_options={"include_usage": True}, timeout=timeout
                    )
                except openai.APIError:
                    self._count_failure(call_usage)
                    raise

            try:
                with self._observed("stream", call_usage):
                    stream, attempts = await with_retries_async(opened, self.policy, deadline=deadline)
                    async with stream:  # leaving it (done, failed or cancelled) closes the HTTP stream to the model
                        pieces: list[str] = []
                        finish: str | None = None
                        tokens: CompletionUsage | None = None
                        async for chunk in self._read(stream, call_usage):
                            tokens = chunk.usage or tokens
                            for choice in chunk.choices:
                                finish = choice.finish_reason or finish
                                if choice.delta.content:
                                    pieces.append(choice.delta.content)
                                    yield choice.delta.content
                    self._count_success(call_usage, tokens)
            finally:
                record_call(call_usage.snapshot())
        elapsed = time.perf_counter() - started
        yield ChatReply(text="".join(pieces), finish_reason=finish, attempts=attempts, usage=call_usage.snapshot(),
                        elapsed_s=elapsed)  # fmt: skip

    async def _read(
        self, stream: AsyncStream[ChatCompletionChunk], call_usage: UsageCounter
    ) -> AsyncIterator[ChatCompletionChunk]:
        """The stream's chunks; a failure counts, and a lost connection is raised as the `openai` error it is."""
        try:
            async for chunk in stream:
                yield chunk
        except openai.APIError:
            self._count_failure(call_usage)
            raise
        except httpx.TransportError as exc:
            self._count_failure(call_usage)
            lost = openai.APITimeoutError if isinstance(exc, httpx.TimeoutException) else openai.APIConnectionError
            raise lost(request=stream.response.request) from exc

    def _sync_client(self) -> openai.OpenAI:
        http = openai.DefaultHttpxClient(verify=_tls_context())
        return openai.OpenAI(base_url=str(self.client.base_url), api_key=self.client.api_key, max_retries=0,
                             http_client=http)  # fmt: skip

    def _async_client(self) -> openai.AsyncOpenAI:
        """A client of one call's own (asyncio clients belong to one event loop), closed when the call ends."""
        http = openai.DefaultAsyncHttpxClient(verify=_tls_context())
        return openai.AsyncOpenAI(base_url=str(self.client.base_url), api_key=self.client.api_key, max_retries=0,
                                  http_client=http)  # fmt: skip

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
        self._count_success(call_usage, response.usage)
        return response

    def _count_failure(self, call_usage: UsageCounter) -> None:
        for counter in (self.usage, call_usage):
            counter.add_failure()
        metrics.LLM_CALLS.labels(self.model, "error").inc()

    def _count_success(self, call_usage: UsageCounter, tokens: CompletionUsage | None) -> None:
        prompt, completion = (tokens.prompt_tokens, tokens.completion_tokens) if tokens else (0, 0)
        for counter in (self.usage, call_usage):
            counter.add(prompt, completion)
        metrics.LLM_CALLS.labels(self.model, "ok").inc()
        metrics.LLM_TOKENS.labels(self.model, "prompt").inc(prompt)
        metrics.LLM_TOKENS.labels(self.model, "completion").inc(completion)

    @contextmanager
    def _observed(self, operation: str, call_usage: UsageCounter) -> Iterator[None]:
        """One call's span (model, attempts, token counts; never the messages) and its latency, retries included."""
        started = time.perf_counter()
        attributes = {"gen_ai.operation.name": operation, "gen_ai.request.model": self.model}
        with tracing.leaf_span(f"llm {operation}", attributes) as current:
            try:
                yield
            finally:
                usage = call_usage.snapshot()
                current.set_attributes({
                    "gen_ai.usage.input_tokens": usage.prompt_tokens,
                    "gen_ai.usage.output_tokens": usage.completion_tokens,
                    "graphwire.llm.failed_attempts": usage.failed_calls,
                })  # fmt: skip
                metrics.LLM_DURATION.labels(self.model).observe(time.perf_counter() - started)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The certificate store every per-call client verifies with, loaded once: loading it is most of the cost of a
    client (about 35 ms; a client built with it takes under 2 ms)."""
    return httpx.create_ssl_context()


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
