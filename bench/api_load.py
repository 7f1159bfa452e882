"""A bounded load test of the API: POST /v1/retrieve and POST /v1/query, each for --duration seconds from
--concurrency concurrent clients, against one uvicorn process; req/s, p50/p95/p99 latency, status codes, and the
server's RSS before and after.

    graphwire ingest data/demo/articles.jsonl           # a graph (and vectors) for the API to serve
    .venv/bin/python -m bench.api_load --duration 30 --concurrency 16

The server runs with the settings of the environment (graph mode, its default fill; /v1/query with the extractive
answerer, so no LLM is involved). Questions cycle through data/demo/questions.json. Each endpoint gets a warm-up pass
over the questions first (query plans, name index, embedder), which is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench._results import command_line, machine, write_results
from bench._server import start_api
from graphwire.core.servers.neo4j_server import free_port

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "data" / "demo" / "questions.json"
OUT = ROOT / "bench" / "api_load"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _payload(endpoint: str, question: str, mode: str = "graph") -> dict[str, Any]:
    body: dict[str, Any] = {"question": question, "mode": mode, "top_k": 10}
    return {**body, "answerer": "extractive"} if endpoint == "/v1/query" else body


async def _run(
    base: str,
    endpoint: str,
    questions: list[str],
    duration_s: float,
    concurrency: int,
    mode: str = "graph",
    warmup: int | None = None,
) -> dict[str, Any]:
    """`warmup`: how many of the questions are asked once first, not counted (all of them when None)."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        for question in questions[:warmup]:  # warm-up, not counted
            await client.post(endpoint, json=_payload(endpoint, question, mode))
        stop_at = time.perf_counter() + duration_s

        async def worker(offset: int) -> None:
            i = offset
            while time.perf_counter() < stop_at:
                started = time.perf_counter()
                try:
                    body = _payload(endpoint, questions[i % len(questions)], mode)
                    response = await client.post(endpoint, json=body)
                    statuses[str(response.status_code)] += 1
                except httpx.HTTPError as exc:
                    statuses[type(exc).__name__] += 1
                latencies.append((time.perf_counter() - started) * 1000)
                i += concurrency

        started = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(concurrency)))
        elapsed = time.perf_counter() - started
    arr = np.asarray(latencies)
    return {
        "endpoint": endpoint,
        "requests": len(latencies),
        "elapsed_s": round(elapsed, 1),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "latency_ms": {q: round(float(np.percentile(arr, p)), 1) for q, p in (("p50", 50), ("p95", 95), ("p99", 99))},
        "statuses": dict(statuses),
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# API load: POST /v1/retrieve and /v1/query (issue 13)", "",
        f"Command: `{report['command']}`", "",
        f"Machine: {report['machine']}; load average {report['load_average_before']} before, "
        f"{report['load_average_after']} after (1, 5, 15 min). One uvicorn process, graph mode with the default fill, "
        f"extractive answerer; the demo graph. {report['concurrency']} concurrent clients, "
        f"{report['duration_s']} s per endpoint after a warm-up pass.", "",
        "| endpoint | requests | req/s | p50 ms | p95 ms | p99 ms | statuses |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]  # fmt: skip
    for run in report["runs"]:
        lat = run["latency_ms"]
        lines.append(f"| `{run['endpoint']}` | {run['requests']} | {run['requests_per_s']} | {lat['p50']} | "
                     f"{lat['p95']} | {lat['p99']} | {run['statuses']} |")  # fmt: skip
    lines += ["", "Server RSS (MB): " + ", ".join(f"{k} {v}" for k, v in report["rss_mb"].items()) + "."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load per endpoint")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))]
    port = free_port()
    report: dict[str, Any] = {"command": command_line(), "machine": machine(), "concurrency": args.concurrency,
                              "duration_s": args.duration, "load_average_before": _load()}  # fmt: skip
    server = start_api(port, workers=1, env={"NEO4J_APPLY_SCHEMA_ON_START": "false"})
    try:
        base = f"http://127.0.0.1:{port}"
        rss = {"before": _rss_mb(server.pid)}
        runs = []
        for endpoint in ("/v1/retrieve", "/v1/query"):
            runs.append(asyncio.run(_run(base, endpoint, questions, args.duration, args.concurrency)))
            rss[f"after {endpoint}"] = _rss_mb(server.pid)
            print(runs[-1], flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
    report.update(runs=runs, rss_mb=rss, load_average_after=_load())
    write_results(OUT, report, markdown(report))


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


if __name__ == "__main__":
    main()
