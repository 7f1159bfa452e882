"""MCP `ask` latency against the same question over POST /v1/query: one client, one call at a time, the demo questions
(cycled to --calls calls per path), through three doors to the same functions:

- `http`: POST /v1/query of one uvicorn process (httpx, one kept-alive connection);
- `mcp-http`: the MCP tool `ask` at /mcp of that same process (the SDK's client, streamable HTTP);
- `mcp-stdio`: the MCP tool `ask` of `graphwire mcp`, a subprocess spoken to over stdin/stdout (the SDK's client).

    graphwire ingest data/demo/articles.jsonl           # a graph (and vectors) for the API to serve
    .venv/bin/python -m bench.mcp_latency --calls 20

Every call asks in graph mode with the extractive answerer (no LLM), top_k 10. Each path gets a warm-up pass over the
questions first (query plans, name index, embedder), which is not counted; then the paths take turns question by
question, so a change in the machine's load falls on all three alike. Each call's server time (`timings_ms.request`,
retrieval plus answer, the same in all three) is recorded beside the client's, so the transport's share is their
difference.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import numpy as np
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench._results import command_line, finish_report, machine
from bench._server import start_api
from graphwire.core.servers.neo4j_server import free_port

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "data" / "demo" / "questions.json"
OUT = ROOT / "bench" / "mcp_latency"
ARGS = {"mode": "graph", "answerer": "extractive", "top_k": 10}
PATHS = ("http", "mcp-http", "mcp-stdio")

Ask = Callable[[str], Awaitable[tuple[str, float]]]  # question -> (answer, server milliseconds)


def _summary(client_ms: list[float], server_ms: list[float]) -> dict[str, Any]:
    client, server = np.asarray(client_ms), np.asarray(server_ms)
    return {
        "calls": len(client_ms),
        "client_ms": {q: round(float(np.percentile(client, p)), 1) for q, p in (("p50", 50), ("p95", 95))}
        | {"mean": round(float(client.mean()), 1)},
        "server_ms": {"p50": round(float(np.percentile(server, 50)), 1), "mean": round(float(server.mean()), 1)},
        "transport_ms": {
            "p50": round(float(np.percentile(client - server, 50)), 1),
            "mean": round(float((client - server).mean()), 1),
        },  # fmt: skip
    }


async def _measure(asks: dict[str, Ask], questions: list[str], calls: int) -> dict[str, Any]:
    answers: dict[str, list[str]] = {name: [] for name in asks}
    for ask in asks.values():  # warm-up, not counted
        for question in questions:
            await ask(question)
    client_ms: dict[str, list[float]] = {name: [] for name in asks}
    server_ms: dict[str, list[float]] = {name: [] for name in asks}
    for i in range(calls):
        question = questions[i % len(questions)]
        for name, ask in asks.items():  # the paths take turns on each question
            started = time.perf_counter()
            answer, server = await ask(question)
            client_ms[name].append((time.perf_counter() - started) * 1000)
            server_ms[name].append(server)
            answers[name].append(answer)
    agree = all(answers[name] == answers["http"] for name in asks)
    return {"paths": {name: _summary(client_ms[name], server_ms[name]) for name in asks}, "answers_agree": agree}


async def _run(base: str, questions: list[str], calls: int, env: dict[str, str]) -> dict[str, Any]:
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=base, timeout=120))
        mcp_http_client = await stack.enter_async_context(httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)))
        started = time.perf_counter()
        over_http = await stack.enter_async_context(
            Client(streamable_http_client(f"{base}/mcp", http_client=mcp_http_client))
        )
        connect_ms = {"mcp-http": round((time.perf_counter() - started) * 1000, 1)}
        command = [sys.executable, "-m", "graphwire.cli.main", "mcp"]
        stdio = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=ROOT)
        started = time.perf_counter()
        over_stdio = await stack.enter_async_context(Client(stdio, read_timeout_seconds=120))
        connect_ms["mcp-stdio"] = round((time.perf_counter() - started) * 1000, 1)  # the process started, too

        async def ask_http(question: str) -> tuple[str, float]:
            response = await http.post("/v1/query", json={"question": question, **ARGS})
            body = response.json()
            return body["answer"], body["timings_ms"]["request"]

        def mcp_ask(client: Client) -> Ask:
            async def ask(question: str) -> tuple[str, float]:
                result = await client.call_tool("ask", {"question": question, **ARGS})
                body = result.structured_content or {}
                if result.is_error:
                    raise RuntimeError(str(result.content))
                return body["answer"], body["timings_ms"]["request"]

            return ask

        asks = {"http": ask_http, "mcp-http": mcp_ask(over_http), "mcp-stdio": mcp_ask(over_stdio)}
        return await _measure(asks, questions, calls) | {"connect_ms": connect_ms}


def render(report: dict[str, Any]) -> str:
    lines = [
        "# MCP `ask` latency against POST /v1/query (issue 26)",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_before']} before, {report['load_average']} after "
        "(1, 5, 15 min; other work shared the machine). The demo "
        f"graph; {report['calls']} calls per path after a warm-up pass over the {report['questions']} demo questions, "
        "one at a time, the paths taking turns question by question; graph mode, extractive answerer, top_k 10.",
        "",
        "| path | calls | client p50 ms | client p95 ms | client mean ms | server p50 ms | transport p50 ms | "
        "transport mean ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in report["paths"].items():
        c, s, t = row["client_ms"], row["server_ms"], row["transport_ms"]
        lines.append(f"| {name} | {row['calls']} | {c['p50']} | {c['p95']} | {c['mean']} | {s['p50']} | {t['p50']} | "
                     f"{t['mean']} |")  # fmt: skip
    lines += [
        "",
        "Client ms: from sending the call to holding its result. Server ms: the answer's own `timings_ms.request` "
        "(retrieval plus answer, measured inside the server). Transport: client minus server, what each door adds "
        "(HTTP and JSON for `http`; MCP's JSON-RPC, the SDK's client and server, and HTTP or a pipe for the MCP "
        "paths). "
        f"Same answers on every path: {'yes' if report['answers_agree'] else 'no'}.",
        "",
        f"Opening a session (the SDK's `Client` entered, handshake done): {report['connect_ms']['mcp-http']} ms over "
        f"HTTP to the running API; {report['connect_ms']['mcp-stdio']} ms over stdio, which starts `graphwire mcp` "
        "(Python, the imports, the job worker, a first reach of Neo4j).",
    ]
    return "\n".join(lines) + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20, help="calls per path (the demo questions, cycled)")
    parser.add_argument("--out", type=Path, default=OUT, help="report path without suffix (.json and .md)")
    parser.add_argument("--notes", type=Path, help="a Markdown file appended to the report")
    args = parser.parse_args()
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))]
    load_before = [round(x, 2) for x in os.getloadavg()]
    port = free_port()
    env = {"LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT)}
    server = start_api(port, env=env)
    try:
        stdio_env = {k: v for k, v in os.environ.items() if k.isupper()} | env
        report: dict[str, Any] = anyio.run(_run, f"http://127.0.0.1:{port}", questions, args.calls, stdio_env)
    finally:
        server.terminate()
        server.wait(timeout=30)
    report |= {"command": command_line(), "machine": machine(), "calls": args.calls, "questions": len(questions),
               "load_before": load_before}  # fmt: skip
    finish_report(args.out, report, render, args.notes)
    print(render(report))


if __name__ == "__main__":
    main()
