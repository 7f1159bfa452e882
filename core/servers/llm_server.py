"""A local OpenAI-compatible LLM server: llama.cpp's HTTP server through xllamacpp (PyPI, prebuilt), on 127.0.0.1.

`graphwire llm serve MODEL.gguf` runs it in the foreground for users without a server; the test suite starts one
per session with `LocalLLMServer` (a child process, so stopping it frees the model's memory and its threads at once).
`/v1/chat/completions` supports `response_format` json_schema (as a grammar), tools and usage; the server keeps the
common prefix of consecutive prompts, so the extraction prompt's fixed system message is read once.

One thread by default: on a small shared CPU two threads collapsed to ~1.5 tokens/s under load where one gave ~10.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx

DEFAULT_CONTEXT = 4096  # tokens per request: the extraction prompt (~1,100) and an answer prompt (~2,500) fit
DEFAULT_THREADS = 1


class LLMServerError(RuntimeError):
    """The server could not start (xllamacpp missing, model unreadable, port taken) or did not become ready."""


@dataclass(frozen=True)
class ServerOptions:
    model: Path
    port: int
    host: str = "127.0.0.1"
    threads: int = DEFAULT_THREADS
    context: int = DEFAULT_CONTEXT
    alias: str | None = None  # the model name the server reports; default: the file name without .gguf

    @property
    def model_name(self) -> str:
        return self.alias or self.model.name.removesuffix(".gguf")

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"


def serve_forever(options: ServerOptions, on_ready: threading.Event | None = None) -> None:
    """Run the server in this process until SIGTERM or SIGINT."""
    try:
        import xllamacpp
    except ImportError as exc:
        raise LLMServerError("`graphwire llm serve` needs xllamacpp: pip install 'graphwire[local-llm]'") from exc
    if not options.model.is_file():
        raise LLMServerError(f"no model file at {options.model}")
    params = xllamacpp.CommonParams()
    params.model.path = str(options.model)
    params.model_alias = {options.model_name}
    params.hostnames = [options.host]
    params.port = options.port
    params.n_ctx = options.context
    params.n_parallel = 1  # one slot: the whole context for one request, and the prompt cache stays warm
    params.cpuparams.n_threads = options.threads
    params.cpuparams_batch.n_threads = options.threads
    params.use_jinja = True  # the model's own chat template, which renders tools
    params.warmup = False
    server = xllamacpp.Server(params)  # noqa: F841 - serves while referenced
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if on_ready is not None:
        on_ready.set()
    stop.wait()


class LocalLLMServer:
    """The server as a child process: `with LocalLLMServer(options) as server: ... server.base_url`."""

    def __init__(self, options: ServerOptions, log_path: Path | None = None) -> None:
        self.options = options
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return self.options.base_url

    def start(self, timeout_s: float = 120.0) -> LocalLLMServer:
        o = self.options
        command = [sys.executable, "-m", "graphwire.core.servers.llm_server", str(o.model), "--port", str(o.port),
                   "--host", o.host, "--threads", str(o.threads), "--context", str(o.context),
                   "--alias", o.model_name]  # fmt: skip
        log = self.log_path.open("wb") if self.log_path else subprocess.DEVNULL
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())
        self._wait_ready(timeout_s)
        return self

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise LLMServerError(f"the LLM server exited with {self.process.returncode} (log: {self.log_path})")
            try:
                if httpx.get(f"http://{self.options.host}:{self.options.port}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise LLMServerError(f"the LLM server was not ready after {timeout_s:g} s (log: {self.log_path})")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> LocalLLMServer:
        return self.start() if self.process is None else self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="llama.cpp's OpenAI-compatible server (xllamacpp) on one model")
    parser.add_argument("model", type=Path)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    parser.add_argument("--context", type=int, default=DEFAULT_CONTEXT)
    parser.add_argument("--alias")
    args = parser.parse_args(argv)
    serve_forever(ServerOptions(args.model, args.port, args.host, args.threads, args.context, args.alias))


if __name__ == "__main__":
    main()
