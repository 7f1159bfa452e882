"""Throughput of POST /v1/retrieve for every mode, with 1 and 2 uvicorn workers, beside a pure embedding loop run on
the same machine in the same run (the bound for the modes that embed the question).

For each worker count the API is started once against the store of the environment (NEO4J_URI, CHROMA_PATH, ...)
and waited on until /health/ready answers 200; then each mode gets a warm-up pass over the first questions and
`--duration` seconds of load from `--concurrency` clients (questions cycled from `--questions`). The embedding loop
runs the same questions through the offline embedder, one question per call, in as many processes as the API has
workers with a thread per core spread over them (as the API embeds concurrent requests), for the same duration: modes
that embed the question cannot go faster than it on this machine. How many texts each mode embeds per request (the
question, and for flat+ and the modes built on it its clauses and claim segments) is counted in this process over the
first questions, so each mode's own bound is the loop's rate divided by it.

    python -m bench.api_throughput --questions ../shared/data/multihop-rag/MultiHopRAG.json \\
        --out bench/api_throughput_multihop-rag
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any
from unittest.mock import patch

from bench._results import ROOT, command_line, finish_report, machine
from bench._server import start_api, wait_ready
from bench.api_load import _run
from graphwire.core.servers.neo4j_server import free_port
from graphwire.eval.datasets import load_questions
from graphwire.eval.selection import select
from graphwire.retrieval.registry import mode_names

WARMUP = 5  # questions asked once per mode before the clock starts
COUNTED = 50  # questions whose embedded texts are counted per mode


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (uvicorn's workers), MB."""
    total, pids = 0, [pid]
    while pids:
        current = pids.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
        pids += [int(child) for child in children]
    return round(total / 1024, 1)


def _embed_loop(questions: list[str], duration_s: float, threads: int, done: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from graphwire.core.clients.embeddings import embedder_from_settings
    from graphwire.core.settings import Settings

    embedder = embedder_from_settings(Settings())
    embedder.embed_query(questions[0])  # the session loaded before the clock starts
    stop_at = time.perf_counter() + duration_s

    def loop(offset: int) -> int:
        count = 0
        while time.perf_counter() < stop_at:
            embedder.embed_query(questions[(offset + count) % len(questions)])
            count += 1
        return count

    with ThreadPoolExecutor(max_workers=threads) as pool:
        done.put(sum(pool.map(loop, [i * 7 for i in range(threads)])))


def embedding_loop(questions: list[str], duration_s: float, processes: int) -> float:
    """Questions embedded per second by `processes` processes, one question per call from a thread per core spread
    over them."""
    context = multiprocessing.get_context("spawn")
    done = context.Queue()
    threads = max(1, (os.cpu_count() or 1) // processes)
    procs = [context.Process(target=_embed_loop, args=(questions, duration_s, threads, done)) for _ in range(processes)]
    for proc in procs:
        proc.start()
    counts = [done.get() for _ in procs]
    for proc in procs:
        proc.join()
    return round(sum(counts) / duration_s, 1)


def texts_per_request(modes: list[str], questions: list[str]) -> dict[str, float]:
    """Mean number of texts each mode embeds per request, counted in this process over the first COUNTED questions
    (the shared embedder's query-side calls, a call inside another counted once)."""
    from graphwire.core.clients.embeddings import embedder_from_settings
    from graphwire.core.clients.graph import Graph
    from graphwire.core.settings import Settings
    from graphwire.retrieval.registry import RetrievalContext

    settings = Settings()
    embedder = embedder_from_settings(settings)
    counted = {"texts": 0}
    inside = threading.local()

    def counting(method: Any) -> Any:
        def call(texts: Any) -> Any:
            if not getattr(inside, "on", False):
                counted["texts"] += len(texts)
            inside.on = True
            try:
                return method(texts)
            finally:
                inside.on = False

        return call

    graph = Graph.from_settings(settings)
    try:
        ctx = RetrievalContext(settings, graph=lambda: graph)
        out: dict[str, float] = {}
        for mode in modes:
            retriever = ctx.retriever(mode)
            retriever.retrieve(questions[0])  # built and warmed outside the count
            with (
                patch.object(embedder, "embed_queries", counting(embedder.embed_queries)),
                patch.object(embedder, "embed", counting(embedder.embed)),
            ):
                counted["texts"] = 0
                for question in questions[:COUNTED]:
                    retriever.retrieve(question)
                out[mode] = round(counted["texts"] / min(COUNTED, len(questions)), 2)
        return out
    finally:
        graph.close()


def measure(workers: int, modes: list[str], questions: list[str], args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    server = start_api(port, workers=workers, env={"NEO4J_APPLY_SCHEMA_ON_START": "false"})
    base = f"http://127.0.0.1:{port}"
    try:
        ready_s = wait_ready(base)
        runs = []
        for mode in modes:
            run = asyncio.run(_run(base, "/v1/retrieve", questions, args.duration, args.concurrency, mode, WARMUP))
            run.update(mode=mode, rss_mb=rss_mb(server.pid))
            runs.append(run)
            print(workers, mode, run["requests_per_s"], run["latency_ms"], run["statuses"], flush=True)
    finally:
        server.terminate()
        server.wait(timeout=60)
    embedded = embedding_loop(questions, args.duration, workers)
    print(workers, "embedding loop", embedded, flush=True)
    return {"workers": workers, "ready_s": ready_s, "runs": runs, "embeddings_per_s": embedded}


def render(report: dict[str, Any]) -> str:
    lines = [
        "# POST /v1/retrieve throughput by mode, 1 and 2 workers, beside a pure embedding loop",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"{report['questions']} questions from `{report['questions_path']}` cycled; {report['concurrency']} "
        f"concurrent clients (in the benchmark's own process, on the same cores) for {report['duration_s']} s per "
        "mode after a warm-up pass; the API's settings are the environment's defaults. The embedding loop embeds one "
        "question per call from a thread per core, spread over as many processes as the API has workers, for as "
        "long. `texts / request`: the texts a mode embeds per request (counted over the first questions), and the "
        "loop's rate divided by it: a rough bound only, since a request's clauses and claim segments are shorter "
        "than whole questions, so a mode can pass it.",
        "",
        "| workers | mode | req/s | / embedding loop | texts / request | loop / texts | req/s / (loop / texts) | "
        "p50 ms | p95 ms | p99 ms | statuses | RSS MB |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    texts = report.get("texts_per_request", {})
    for result in report["results"]:
        loop = result["embeddings_per_s"]
        for run in result["runs"]:
            lat = run["latency_ms"]
            n = texts.get(run["mode"])
            bound = f"{loop / n:.1f} | {run['requests_per_s'] / (loop / n):.2f}" if n else "- | -"
            lines.append(
                f"| {result['workers']} | {run['mode']} | {run['requests_per_s']} | "
                f"{run['requests_per_s'] / loop:.2f} | {'-' if n is None else n} | {bound} | {lat['p50']} | "
                f"{lat['p95']} | {lat['p99']} | {run['statuses']} | {run['rss_mb']} |"
            )
        lines.append(f"| {result['workers']} | *embedding loop* | {loop} | 1.00 | 1 | {loop} | 1.00 | | | | | |")
    lines += [
        "",
        "Seconds from start to ready: "
        + ", ".join(f"{r['workers']} worker(s) {r['ready_s']} s" for r in report["results"])
        + ".",
    ]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=200, help="questions drawn (seed 0); 0: all")
    parser.add_argument("--modes", default=",".join(mode_names()))
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds of load per mode")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    questions = [q.query for q in select(load_questions(args.questions), sample_size=args.sample or None)]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    texts = texts_per_request(modes, questions)
    results = [measure(int(w), modes, questions, args) for w in args.workers.split(",")]
    report: dict[str, Any] = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": os.path.relpath(args.questions, ROOT),
        "questions": len(questions),
        "concurrency": args.concurrency,
        "duration_s": args.duration,
        "texts_per_request": texts,
        "results": results,
    }
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
