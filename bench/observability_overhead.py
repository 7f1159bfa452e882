"""What metrics and traces cost: POST /v1/retrieve throughput and latency with metrics off (METRICS_ENABLED=false),
metrics on (the default, /metrics scraped every second), and metrics plus tracing (every span exported over
OTLP/HTTP to a local sink: a tiny HTTP server in this process accepting POST /v1/traces), in one run on the demo
graph.

    .venv/bin/python -m bench.observability_overhead --wipe --rounds 4 --duration 20 --concurrency 4

Needs NEO4J_URI (and NEO4J_PASSWORD) of a Neo4j it may empty: the demo corpus is ingested into it and into a
temporary Chroma folder. The three API processes run side by side (uvicorn, one worker each, `graph` mode without
fill so each request is a few milliseconds of graphwire's own work: the overhead shows more than behind a slower
mode); the measurement alternates between them, round after round, so drift of a shared machine's load spreads over
all three. Each server gets a warm-up pass over the questions first. Results: bench/observability_overhead.json/.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench._results import add_wipe_flag, command_line, finish_report, machine, require_wipe
from bench._server import start_api
from graphwire import DEMO_CORPUS, Graphwire
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "data" / "demo" / "questions.json"
OUT = ROOT / "bench" / "observability_overhead"
CONFIGS = ("metrics off", "metrics on", "metrics + tracing")


class Sink(BaseHTTPRequestHandler):
    """An OTLP/HTTP collector that keeps nothing: 200 to every POST, counting requests and bytes."""

    received = {"requests": 0, "bytes": 0}

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        Sink.received["requests"] += 1
        Sink.received["bytes"] += length
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def _cpu_s(pid: int) -> float:
    """User plus system CPU seconds of a process (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _load(
    port: int, pid: int, questions: list[str], duration_s: float, concurrency: int, scrape: bool
) -> dict[str, Any]:
    cpu_before = _cpu_s(pid)
    latencies: list[float] = []
    errors = 0
    deadline = time.monotonic() + duration_s
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:

        async def worker(offset: int) -> None:
            nonlocal errors
            i = offset
            while time.monotonic() < deadline:
                body = {"question": questions[i % len(questions)], "mode": "graph"}
                started = time.perf_counter()
                response = await client.post("/v1/retrieve", json=body)
                latencies.append((time.perf_counter() - started) * 1000)
                errors += response.status_code != 200
                i += concurrency

        async def scraper() -> None:
            while time.monotonic() < deadline:
                assert (await client.get("/metrics")).status_code == 200
                await asyncio.sleep(1.0)

        started = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(concurrency)), *([scraper()] if scrape else []))
        elapsed = time.perf_counter() - started
    cpu_ms = (_cpu_s(pid) - cpu_before) * 1000 / max(len(latencies), 1)
    return {"requests": len(latencies), "errors": errors, "rps": len(latencies) / elapsed,
            "p50_ms": float(np.percentile(latencies, 50)), "p95_ms": float(np.percentile(latencies, 95)),
            "server_cpu_ms_per_request": cpu_ms}  # fmt: skip


def _summary(rounds: list[dict[str, Any]]) -> dict[str, float]:
    keys = ("rps", "p50_ms", "p95_ms", "server_cpu_ms_per_request")
    return {key: round(float(np.median([r[key] for r in rounds])), 2) for key in keys}


def render(report: dict[str, Any]) -> str:
    base = report["summary"]["metrics off"]
    lines = [
        "# Observability overhead: POST /v1/retrieve with metrics off, on, and with tracing",
        "",
        f"Command: `{report['command']}`  ",
        f"Machine: {report['machine']}; load average after the run {report['load_average']}  ",
        f"Run {report['date']}: {report['rounds']} rounds of {report['duration_s']:g} s per configuration, "
        f"concurrency {report['concurrency']}, `graph` mode without fill on the demo graph, one uvicorn worker each; "
        "the configurations alternate within each round. Medians over rounds.",
        "",
        "| configuration | req/s | p50 ms | p95 ms | server CPU ms/request | req/s vs off | p95 vs off | CPU vs off |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in CONFIGS:
        s = report["summary"][name]
        rps = (s["rps"] / base["rps"] - 1) * 100
        p95 = (s["p95_ms"] / base["p95_ms"] - 1) * 100
        cpu = (s["server_cpu_ms_per_request"] / base["server_cpu_ms_per_request"] - 1) * 100
        lines.append(f"| {name} | {s['rps']:.1f} | {s['p50_ms']:.2f} | {s['p95_ms']:.2f} | "
                     f"{s['server_cpu_ms_per_request']:.2f} | {rps:+.1f}% | {p95:+.1f}% | {cpu:+.1f}% |")  # fmt: skip
    sink = report["otlp_sink"]
    lines += [
        "",
        f"The tracing server exported {sink['requests']} OTLP requests ({sink['bytes'] / 2**20:.1f} MiB) to the sink. "
        "Per round:",
        "",
        "| round | " + " | ".join(f"{c}: req/s, p95 ms, CPU ms/req" for c in CONFIGS) + " |",
        "|---|" + "---|" * len(CONFIGS),
    ]
    for i in range(report["rounds"]):
        runs = [report["runs"][c][i] for c in CONFIGS]
        cells = [f"{r['rps']:.1f}, {r['p95_ms']:.2f}, {r['server_cpu_ms_per_request']:.2f}" for r in runs]
        lines.append(f"| {i + 1} | " + " | ".join(cells) + " |")
    lines += [
        "",
        '"Metrics off" (METRICS_ENABLED=false) drops the /metrics route and the HTTP request metrics; the '
        "observations made inside core (Cypher statement histograms, stage, cache and LLM metrics) are made in all "
        'three. "Metrics on" adds the request metrics and a scrape of /metrics every second (Prometheus\' default '
        "is every 15 s). Tracing uses the SDK's batch processor (OTEL_BSP defaults) and its OTLP/HTTP exporter. "
        "Server CPU per request (user + system CPU seconds of the server process over the requests it answered, "
        "scrapes included) is the figure other work on a shared machine moves least; throughput and latency follow "
        "the machine's load.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per configuration per round")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    add_wipe_flag(parser)
    args = parser.parse_args()
    require_wipe(parser, args)
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))]
    stores = Path(tempfile.mkdtemp(prefix="graphwire-obs-bench-"))
    settings = Settings(chroma_path=stores / "chroma", ingest_state_path=stores / "state",
                        extraction_cache_path=stores / "cache.sqlite")  # fmt: skip
    with Graphwire(settings) as gw:
        gw.graph.write("admin/wipe")
        gw.ingest(DEMO_CORPUS, extractor="offline")
    sink = ThreadingHTTPServer(("127.0.0.1", free_port()), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    common = {"CHROMA_PATH": str(stores / "chroma"), "INGEST_STATE_PATH": str(stores / "state"),
              "GRAPH_FILL_MODE": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": ""}  # fmt: skip
    envs = {
        "metrics off": {**common, "METRICS_ENABLED": "false"},
        "metrics on": common,
        "metrics + tracing": {**common, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_port}"},
    }
    ports = {name: free_port() for name in CONFIGS}
    servers = {name: start_api(ports[name], env=envs[name]) for name in CONFIGS}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in CONFIGS}
    try:
        for name in CONFIGS:  # warm-up: query plans, name index, caches
            asyncio.run(_load(ports[name], servers[name].pid, questions, 5.0, args.concurrency, scrape=False))
        for round_no in range(args.rounds):
            order = CONFIGS if round_no % 2 == 0 else tuple(reversed(CONFIGS))
            for name in order:
                result = asyncio.run(_load(ports[name], servers[name].pid, questions, args.duration, args.concurrency,
                                           scrape=name != "metrics off"))  # fmt: skip
                runs[name].append(result)
                print(f"round {round_no + 1} {name}: {result}", flush=True)
    finally:
        for proc in servers.values():
            proc.terminate()
            proc.wait(timeout=30)
        sink.shutdown()
    report = {
        "command": command_line(), "machine": machine(), "date": time.strftime("%Y-%m-%d"), "rounds": args.rounds,
        "duration_s": args.duration, "concurrency": args.concurrency, "runs": runs,
        "summary": {name: _summary(runs[name]) for name in CONFIGS}, "otlp_sink": dict(Sink.received),
    }  # fmt: skip
    finish_report(OUT, report, render, args.notes)
    print(render(report))


if __name__ == "__main__":
    main()
