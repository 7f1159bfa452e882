"""Retrieval latency of several modes measured side by side: for each question, every mode in turn (in a rotating
order), in one process that has answered a warm-up question per mode and read its shared caches. Load on the machine
then falls on every mode alike, so the ratios hold even where the absolute numbers do not. With `--http`, the same
questions are then sent the same way to `POST /v1/retrieve` of an API process started on the same stores (one
uvicorn worker, one client: concurrency 1), timed at the client.

    python -m bench.mode_latency --sample 800 --modes all --http --out bench/mode_latency_multihop-rag
    python -m bench.mode_latency --questions ../shared/data/hotpotqa/questions.json --modes all --http \\
        --out bench/mode_latency_hotpotqa
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from tqdm import tqdm

from bench._results import ROOT, command_line, finish_report, machine
from bench._server import start_api, wait_ready
from graphwire.core.clients.graph import Graph
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_QUESTIONS, load_questions
from graphwire.eval.selection import select
from graphwire.retrieval.registry import RetrievalContext, mode_names


def measure(ctx: RetrievalContext, modes: list[str], queries: list[str], top_k: int) -> dict[str, list[float]]:
    retrievers = {mode: ctx.retriever(mode) for mode in modes}
    ctx.warm()
    return rotation(modes, queries, lambda mode, query: retrievers[mode].retrieve(query, top_k=top_k), "questions")


def measure_http(modes: list[str], queries: list[str], top_k: int, timeout_s: float = 300.0) -> dict[str, list[float]]:
    """The same rotation against POST /v1/retrieve of a fresh API process (one worker), once it is ready."""
    key = os.environ.get("API_KEY")
    port = free_port()
    proc = start_api(port, env={"STARTUP_WARMUP": "wait"}, timeout_s=timeout_s)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, timeout_s)
        headers = {"X-API-Key": key} if key else {}
        with httpx.Client(base_url=base, headers=headers, timeout=timeout_s) as client:

            def ask(mode: str, query: str) -> None:
                client.post("/v1/retrieve", json={"question": query, "mode": mode, "top_k": top_k}).raise_for_status()

            return rotation(modes, queries, ask, "questions over HTTP")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def rotation(
    modes: list[str], queries: list[str], ask: Callable[[str, str], object], desc: str
) -> dict[str, list[float]]:
    """Milliseconds of `ask(mode, query)` for every query and mode, after one warm-up question per mode; the modes
    take turns in a rotating order, so no mode always runs first."""
    for mode in modes:
        ask(mode, queries[0])
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    for i, query in enumerate(tqdm(queries, desc=desc)):
        for mode in modes[i % len(modes) :] + modes[: i % len(modes)]:
            started = time.perf_counter()
            ask(mode, query)
            times[mode].append((time.perf_counter() - started) * 1000)
    return times


def summary(times: dict[str, list[float]], reference: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for mode, values in times.items():
        p50, p95 = (float(np.percentile(values, q)) for q in (50, 95))
        out[mode] = {"p50": round(p50, 1), "p95": round(p95, 1), "mean": round(float(np.mean(values)), 1)}
    for stats in out.values():
        stats["p95_over_" + reference] = round(stats["p95"] / out[reference]["p95"], 2)
    return out


def render(report: dict[str, Any]) -> str:
    reference = report["reference"]
    lines = [
        f"# Retrieval latency side by side: {', '.join(report['modes'])}",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"{report['questions']} questions from `{report['questions_path']}`, top_k {report['top_k']}, default "
        "settings; each question answered by every mode in turn, after one warm-up question per mode.",
        "",
        f"| mode | p50 ms | p95 ms | mean ms | p95 / {reference} p95 |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += _rows(report["latency_ms"], reference)
    if report.get("http_ms"):
        lines += [
            "",
            "Over HTTP: `POST /v1/retrieve` of an API process started on the same stores (one uvicorn worker, ready "
            "after its warm-up), one client (concurrency 1), the same rotation; timed at the client.",
            "",
            f"| mode | p50 ms | p95 ms | mean ms | p95 / {reference} p95 |",
            "|---|---:|---:|---:|---:|",
            *_rows(report["http_ms"], reference),
        ]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def _rows(latency: dict[str, dict[str, float]], reference: str) -> list[str]:
    return [
        f"| {mode} | {stats['p50']} | {stats['p95']} | {stats['mean']} | {stats['p95_over_' + reference]} |"
        for mode, stats in latency.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--sample", type=int, default=0, help="a random sample of N questions (seed 0); 0 = all")
    parser.add_argument("--modes", default="graph,ppr,joint", help="comma-separated, or `all`")
    parser.add_argument("--http", action="store_true", help="also over HTTP, one client, from a fresh API process")
    parser.add_argument("--reference", default="ppr", help="the mode the p95 ratios are taken against")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    modes = mode_names() if args.modes == "all" else [m.strip() for m in args.modes.split(",") if m.strip()]
    settings = Settings()
    graph = Graph.from_settings(settings)
    try:
        questions = select(load_questions(args.questions), sample_size=args.sample or None)
        queries = [q.query for q in questions]
        times = measure(RetrievalContext(settings, graph=lambda: graph), modes, queries, args.top_k)
    finally:
        graph.close()
    http = measure_http(modes, queries, args.top_k) if args.http else None
    report = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": os.path.relpath(args.questions, ROOT),  # no folder of this machine in the report
        "questions": len(queries),
        "top_k": args.top_k,
        "modes": modes,
        "reference": args.reference,
        "graph_fill_mode": str(settings.graph_fill_mode),
        "latency_ms": summary(times, args.reference),
        "http_ms": summary(http, args.reference) if http else None,
    }
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
