"""Graph retrieval latency without an LLM, per stage, and a load test of POST /v1/retrieve over HTTP.

Needs a Neo4j holding the graph built from ../shared/data/multihop-rag/corpus.facts.json, e.g.

    graphwire ingest ../shared/data/multihop-rag/corpus.facts.json --extractor offline --no-vectors
    .venv/bin/python bench/retrieval_latency.py --http-requests 3000 --concurrency 16

Part 1 runs every question through `GraphRetriever.retrieve` in this process (after a warm-up pass over the first
`--warmup` questions, so Neo4j's query plans are cached) and reports p50/p95/mean per stage and in total. Part 2
starts `uvicorn app.main:create_app` on 127.0.0.1 (`--workers`, the settings from the environment) and sends
`--http-requests` POST /v1/retrieve requests from `--concurrency` concurrent clients, cycling through the questions.
Results go to bench/retrieval_latency.json and .md, with the command line that produced them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shlex
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._results import write_results  # noqa: E402
from bench._server import start_api  # noqa: E402
from graphwire.core.clients.graph import Graph  # noqa: E402
from graphwire.core.servers.neo4j_server import free_port  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.retrieval.graph import GraphRetriever  # noqa: E402

DEFAULT_QUESTIONS = ROOT.parent / "shared" / "data" / "multihop-rag" / "MultiHopRAG.partial.json"
STAGES = ("aliases", "matching", "templates", "filtering", "chunks", "total")


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    arr = np.asarray(values)
    return {
        "n": len(values),
        "p50": round(float(np.percentile(arr, 50)), 2),
        "p95": round(float(np.percentile(arr, 95)), 2),
        "p99": round(float(np.percentile(arr, 99)), 2),
        "mean": round(float(arr.mean()), 2),
        "max": round(float(arr.max()), 2),
    }


def in_process(settings: Settings, questions: list[str], top_k: int, warmup: int) -> dict[str, Any]:
    graph = Graph.from_settings(settings)
    retriever = GraphRetriever.from_settings(graph, settings)
    for question in questions[:warmup]:
        retriever.retrieve(question, top_k=top_k)
    retriever.aliases._cache.clear()  # measure stage 1 uncached; the name index stays loaded
    timings: dict[str, list[float]] = defaultdict(list)
    abstained = facts = chunks = 0
    for question in tqdm(questions, desc="in-process", unit="q"):
        result = retriever.retrieve(question, top_k=top_k)
        for stage in STAGES:
            if stage in result.timings_ms:
                timings[stage].append(result.timings_ms[stage])
        abstained += not result.entities
        facts += len(result.facts)
        chunks += len(result.chunks)
    graph.close()
    return {
        "questions": len(questions),
        "stages_ms": {stage: _percentiles(timings[stage]) for stage in STAGES},
        "no_match": abstained,
        "mean_facts": round(facts / len(questions), 2),
        "mean_chunks": round(chunks / len(questions), 2),
    }


async def _load(base: str, questions: list[str], requests: int, concurrency: int, top_k: int) -> dict[str, Any]:
    latencies: list[float] = []
    errors: dict[str, int] = defaultdict(int)
    counter = iter(range(requests))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def worker(client: httpx.AsyncClient) -> None:
        for i in counter:
            payload = {"question": questions[i % len(questions)], "mode": "graph", "top_k": top_k}
            started = time.perf_counter()
            try:
                response = await client.post("/v1/retrieve", json=payload)
                if response.status_code != 200:
                    errors[str(response.status_code)] += 1
            except httpx.HTTPError as exc:
                errors[type(exc).__name__] += 1
            latencies.append((time.perf_counter() - started) * 1000)

    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        for question in questions[:50]:  # warm-up: plans, name index, connection pool
            await client.post("/v1/retrieve", json={"question": question, "mode": "graph", "top_k": top_k})
        started = time.perf_counter()
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return {
        "requests": requests,
        "concurrency": concurrency,
        "elapsed_s": round(elapsed, 2),
        "requests_per_s": round(requests / elapsed, 1),
        "latency_ms": _percentiles(latencies),
        "errors": dict(errors),
    }


def over_http(questions: list[str], requests: int, concurrency: int, top_k: int, workers: int) -> dict[str, Any]:
    port = free_port()
    server = start_api(port, workers, {"NEO4J_APPLY_SCHEMA_ON_START": "false"}, timeout_s=60.0)
    try:
        result = asyncio.run(_load(f"http://127.0.0.1:{port}", questions, requests, concurrency, top_k))
        return {**result, "workers": workers}
    finally:
        server.terminate()
        server.wait(timeout=30)


def _markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Graph retrieval latency (no LLM)",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}, shared with other work: load average (1/5/15 min) "
        f"{report['load_average_before']} before the run. Graph: {report['graph']}.",
        "",
        f"## In-process, {report['in_process']['questions']} MultiHop-RAG questions, top_k={report['top_k']}",
        "",
        "| stage | p50 ms | p95 ms | p99 ms | mean ms | max ms |",
        "|---|---|---|---|---|---|",
    ]
    for stage, p in report["in_process"]["stages_ms"].items():
        if p.get("n"):
            lines.append(f"| {stage} | {p['p50']} | {p['p95']} | {p['p99']} | {p['mean']} | {p['max']} |")
    ip = report["in_process"]
    lines += [
        "",
        f"Questions with no matched entity or publication: {ip['no_match']}; mean facts {ip['mean_facts']}, "
        f"mean chunks {ip['mean_chunks']}.",
        "",
        "Targets: total p50 <= 30 ms, p95 <= 100 ms.",
    ]
    if "http" in report:
        h = report["http"]
        lat = h["latency_ms"]
        lines += [
            "",
            f"## POST /v1/retrieve over HTTP (uvicorn, {h['workers']} workers, 127.0.0.1), "
            f"concurrency {h['concurrency']}",
            "",
            f"{h['requests']} requests in {h['elapsed_s']} s: **{h['requests_per_s']} req/s**; latency p50 "
            f"{lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms; errors: {h['errors'] or 'none'}.",
            "",
            f"Target: >= 100 req/s at concurrency 16. Client and server share the machine's 2 cores (load average "
            f"{report['load_average_before_http']} before this part).",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--http-requests", type=int, default=2000, help="0 skips the HTTP load test")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="uvicorn worker processes")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "retrieval_latency")
    args = parser.parse_args()

    records = json.loads(args.questions.read_text(encoding="utf-8"))
    questions = [r["query"] for r in records][: args.limit]
    settings = Settings()
    graph = Graph.from_settings(settings)
    counts = graph.read("retrieve/entity_version")[0]
    size = graph.read("bench/graph_size")[0]
    docs, rels = size["documents"], size["relationships"]
    graph.close()
    report: dict[str, Any] = {
        "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
        "graph": f"{docs} documents, {counts['entities']} entities, {rels} entity relationships",
        "top_k": args.top_k,
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "in_process": in_process(settings, questions, args.top_k, args.warmup),
    }
    if args.http_requests:
        report["load_average_before_http"] = [round(x, 2) for x in os.getloadavg()]
        report["http"] = over_http(questions, args.http_requests, args.concurrency, args.top_k, args.workers)
    write_results(args.out, report, _markdown(report))
    print(_markdown(report))


if __name__ == "__main__":
    main()
