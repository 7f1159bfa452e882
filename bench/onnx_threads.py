"""ONNX Runtime's threading for a server that also waits on Neo4j: the question embedder's session with a thread
per core that spins between runs (onnxruntime's default), with spinning off, and with one intra-op thread, each
serving the same questions in turn in one process (so load falls on each alike). The modes that embed beside a Neo4j
read show whether the embedder's threads and the graph work compete for the cores.

    python -m bench.onnx_threads --sample 200 --modes joint,graph --out bench/onnx_threads

Reads the stores of the environment (Neo4j and the vector store, as bench/eval_offline.sh builds them).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench._questions import add_sample_flags, onnx_embedder, sampled_questions
from bench._results import ROOT, command_line, finish_report, latency_stats, machine
from graphwire.core.clients.embeddings import OnnxEmbedder
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.registry import RetrievalContext

CONFIGS = {  # name: (intra-op threads, 0 = one per core; spinning)
    "a thread per core, spinning (onnxruntime's default; graphwire's before 2026-12-03)": (0, True),
    "a thread per core, no spinning (graphwire's default)": (0, False),
    "one thread, spinning": (1, True),
}


def measure(ctx: RetrievalContext, mode: str, questions: list[str], embedder: OnnxEmbedder) -> dict[str, list[float]]:
    sessions = {name: embedder.new_session(*config) for name, config in CONFIGS.items()}
    retriever = ctx.retriever(mode)
    retriever.retrieve(questions[0])
    names = list(sessions)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i, question in enumerate(tqdm(questions, desc=mode, leave=False)):
        for name in names[i % len(names) :] + names[: i % len(names)]:  # no configuration always runs first
            embedder._session = sessions[name]
            started = time.perf_counter()
            retriever.retrieve(question)
            times[name].append((time.perf_counter() - started) * 1000)
    return times


def render(report: dict[str, Any]) -> str:
    lines = [
        "# ONNX Runtime threading beside Neo4j",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"{report['questions']} questions from `{report['questions_path']}`, top_k 10, default settings but for the "
        "question embedder's session; each question answered under every configuration in turn.",
        "",
        "| mode | embedder session | p50 ms | p95 ms | mean ms |",
        "|---|---|---:|---:|---:|",
    ]
    for mode, rows in report["latency_ms"].items():
        for name, s in rows.items():
            lines.append(f"| {mode} | {name} | {s['p50']} | {s['p95']} | {s['mean']} |")
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_sample_flags(parser)
    parser.add_argument("--modes", default="joint,graph")
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    settings = Settings()
    embedder = onnx_embedder(parser, settings)
    questions = sampled_questions(args)
    graph = Graph.from_settings(settings)
    try:
        ctx = RetrievalContext(settings, graph=lambda: graph)
        ctx.warm()
        latency = {}
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            times = measure(ctx, mode, questions, embedder)
            latency[mode] = {name: latency_stats(values) for name, values in times.items()}
    finally:
        graph.close()
    report = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": os.path.relpath(args.questions, ROOT),  # no folder of this machine in the report
        "questions": len(questions),
        "latency_ms": latency,
    }
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
