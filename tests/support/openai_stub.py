"""A real OpenAI-compatible HTTP server for tests, driven by a script of responses; it records every request.

No LLM endpoint is reachable from CI, so every LLM code path is exercised against this server over real HTTP with the
real `openai` / `langchain-openai` clients. It serves:

- `POST /v1/chat/completions`: the next scripted reply (text, a tool call, malformed text, a 429 with Retry-After, a
  500, a slow reply that trips the client's timeout); when the script is empty, the `fallback` responder answers.
- `POST /v1/embeddings`: deterministic unit vectors derived from a hash of each input (no script needed).
- `GET /v1/models`: the one model name.

A chat request with `"stream": true` gets its reply as Server-Sent Events instead: the text one word per
`chat.completion.chunk` (each after `stream_delay_s`), a usage chunk when `stream_options.include_usage` is set, then
`[DONE]`. The record says how many chunks went out and whether the client hung up before the end (`stream_aborted`).

Each chat reply carries a `usage` block (prompt tokens = request characters / 4, completion tokens = reply characters
/ 4, at least 1) so usage accounting can be checked against `stub.reported_usage()`.

    with OpenAIStub() as stub:
        stub.script(rate_limited(retry_after=0), tool_call({"nodes": [...], "relationships": []}))
        ...  # point LLM_BASE_URL at stub.base_url
        assert len(stub.chat_requests) == 2
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "stub-model"
EMBEDDING_DIM = 16


@dataclass
class StubReply:
    """One scripted HTTP reply. `body` is sent as JSON unless `raw` is set; `delay_s` sleeps before replying."""

    status: int = 200
    body: dict[str, Any] | None = None
    raw: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    stream_delay_s: float = 0.0  # between the chunks of a streamed reply


Responder = Callable[[dict[str, Any]], StubReply]
ScriptItem = StubReply | Responder


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    reply_status: int = 0
    received_at: float = field(default_factory=time.monotonic)
    usage: dict[str, int] | None = None
    stream_chunks_sent: int = 0
    stream_aborted: bool = False

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    def message_text(self, role: str) -> str:
        """All text of the messages with this role, joined (system prompt, user prompt)."""
        parts = [m.get("content") for m in self.messages if m.get("role") == role]
        return "\n".join(p if isinstance(p, str) else json.dumps(p) for p in parts if p)


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def _completion(request: dict[str, Any], message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    reply_text = (message.get("content") or "") + json.dumps(message.get("tool_calls") or "")
    prompt_text = json.dumps(request.get("messages", []))
    usage = {"prompt_tokens": _tokens(prompt_text), "completion_tokens": _tokens(reply_text)}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", MODEL),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": usage,
    }


def text(content: str, delay_s: float = 0.0, stream_delay_s: float = 0.0) -> Responder:
    """An assistant message with this text content (good JSON, malformed JSON, prose: whatever the test needs)."""

    def respond(request: dict[str, Any]) -> StubReply:
        message = {"role": "assistant", "content": content}
        return StubReply(body=_completion(request, message, "stop"), delay_s=delay_s, stream_delay_s=stream_delay_s)

    return respond


def tool_call(arguments: dict[str, Any] | str, name: str | None = None, delay_s: float = 0.0) -> Responder:
    """A tool call answering the request's first tool (or `name`); `arguments` may be a malformed JSON string."""

    def respond(request: dict[str, Any]) -> StubReply:
        tools = request.get("tools") or [{"function": {"name": "unknown"}}]
        args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call = {"id": "call_stub", "type": "function", "function": {"name": name or tools[0]["function"]["name"]}}
        call["function"]["arguments"] = args  # type: ignore[index]
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return StubReply(body=_completion(request, message, "tool_calls"), delay_s=delay_s)

    return respond


def rate_limited(retry_after: float = 0.0) -> StubReply:
    error = {"error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit_exceeded"}}
    return StubReply(status=429, body=error, headers={"Retry-After": f"{retry_after:g}"})


def server_error(status: int = 500) -> StubReply:
    return StubReply(status=status, body={"error": {"message": "internal error", "type": "server_error"}})


def slow(item: ScriptItem, delay_s: float) -> Responder:
    """`item`, but only after `delay_s` seconds (longer than the client timeout to simulate a timeout)."""

    def respond(request: dict[str, Any]) -> StubReply:
        reply = item(request) if callable(item) else item
        reply.delay_s = delay_s
        return reply

    return respond


def embedding_vector(value: str) -> list[float]:
    digest = hashlib.sha256(value.encode("utf-8")).digest()
    raw = [b - 127.5 for b in digest[:EMBEDDING_DIM]]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]


class OpenAIStub:
    """The server. Thread-safe; start/stop explicitly or use it as a context manager."""

    def __init__(self, fallback: ScriptItem | None = None) -> None:
        self._script: deque[ScriptItem] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.fallback = fallback
        self.requests: list[RecordedRequest] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def script(self, *items: ScriptItem) -> None:
        """Queue chat replies, served in order, one per request."""
        with self._lock:
            self._script.extend(items)

    def reset(self) -> None:
        with self._lock:
            self._script.clear()
            self.requests.clear()
            self.fallback = None

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reported_usage(self) -> tuple[int, int]:
        """(prompt tokens, completion tokens) the server reported in successful chat replies."""
        done = [r.usage for r in self.chat_requests if r.usage]
        return sum(u["prompt_tokens"] for u in done), sum(u["completion_tokens"] for u in done)

    def _next_chat_reply(self, request: dict[str, Any]) -> StubReply:
        with self._lock:
            item = self._script.popleft() if self._script else self.fallback
        if item is None:
            return StubReply(status=500, body={"error": {"message": "openai stub: script exhausted"}})
        return item(request) if callable(item) else item

    def _embeddings(self, request: dict[str, Any]) -> StubReply:
        inputs = request.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else inputs
        data = [
            {"object": "embedding", "index": i, "embedding": embedding_vector(str(v))} for i, v in enumerate(inputs)
        ]
        tokens = sum(_tokens(str(v)) for v in inputs)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return StubReply(body={"object": "list", "data": data, "model": request.get("model", MODEL), "usage": usage})

    def _dispatch(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[StubReply, RecordedRequest]:
        record = RecordedRequest(path=path, headers=headers, body=body)
        with self._lock:
            self.requests.append(record)
        if path.endswith("/chat/completions"):
            reply = self._next_chat_reply(body)
        elif path.endswith("/embeddings"):
            reply = self._embeddings(body)
        else:
            reply = StubReply(status=404, body={"error": {"message": f"no route {path}"}})
        record.reply_status = reply.status
        if reply.status == 200 and reply.body and "usage" in reply.body and "choices" in reply.body:
            record.usage = dict(reply.body["usage"])
        return reply, record

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
                return

            def do_GET(self) -> None:  # noqa: N802 - http.server naming
                if self.path.rstrip("/").endswith("/models"):
                    self._send(StubReply(body={"object": "list", "data": [{"id": MODEL, "object": "model"}]}))
                else:
                    self._send(StubReply(status=404, body={"error": {"message": "not found"}}))

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length") or 0)
                payload = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(payload or b"{}")
                except json.JSONDecodeError:
                    self._send(StubReply(status=400, body={"error": {"message": "request body is not JSON"}}))
                    return
                reply, record = stub._dispatch(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                if reply.delay_s and stub._stopping.wait(reply.delay_s):
                    return
                if body.get("stream") and reply.status == 200 and reply.body and "choices" in reply.body:
                    self._stream(reply, body, record)
                    return
                self._send(reply)

            def _stream(self, reply: StubReply, request: dict[str, Any], record: RecordedRequest) -> None:
                assert reply.body is not None
                content = reply.body["choices"][0]["message"].get("content") or ""
                words = [w + " " for w in content.split(" ")[:-1]] + [content.split(" ")[-1]]
                base = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()),
                        "model": reply.body["model"]}  # fmt: skip
                events = [{**base, "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}]}
                          for w in words if w]  # fmt: skip
                events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                if (request.get("stream_options") or {}).get("include_usage"):
                    events.append({**base, "choices": [], "usage": reply.body["usage"]})
                self.close_connection = True
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for event in events:
                        if reply.stream_delay_s and stub._stopping.wait(reply.stream_delay_s):
                            return
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                        record.stream_chunks_sent += 1
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    record.stream_aborted = True

            def _send(self, reply: StubReply) -> None:
                data = (reply.raw if reply.raw is not None else json.dumps(reply.body or {})).encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        return Handler
