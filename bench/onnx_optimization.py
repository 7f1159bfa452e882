"""onnxruntime's graph optimization levels for the offline embedder, side by side: what a question and a batch of
passages cost under "basic" (graphwire's before 2026-12-05), "extended" (the default) and "all", and how far each
level's vectors are from the basic ones, set beside how far a passage's batchmates already move its vector.

Each level runs in a process of its own, every level in turn `--repeats` times: the questions embedded one at a
time as a request embeds them (`embed_query`: one ONNX run on a session of one intra-op thread), then the corpus's
first chunks (chunked as `graphwire ingest` chunks) embedded in ingest's groups (`embedding_groups`, then
length-sorted batches of EMBEDDING_BATCH_SIZE, a thread per core), the chunks' texts only: ingest embeds each group's
sentences in the same call. No Neo4j, no vector store.

    python -m bench.onnx_optimization --out bench/onnx_optimization
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, get_args

import numpy as np
from tqdm import tqdm

from bench._questions import add_sample_flags, onnx_embedder, sampled_questions
from bench._results import ROOT, command_line, finish_report, latency_stats, machine
from graphwire.core.clients.chunk_store import embedding_groups
from graphwire.core.clients.embeddings import OPTIMIZATION, OnnxEmbedder, Optimization, Vectors, embedder_from_settings
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_CORPUS
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.loaders import load_articles

LEVELS: tuple[Optimization, ...] = get_args(Optimization)


def embed_as_ingest(embedder: OnnxEmbedder, chunks: Sequence[Chunk]) -> Vectors:
    groups = embedding_groups(chunks, sentences=False)
    return np.concatenate([embedder.embed([chunk.text for chunk in group]) for group, _ in groups])


def measure_level(level: Optimization, questions: list[str], chunks: list[Chunk]) -> dict[str, Any]:
    """One level, in a process of its own as a server holds one (with every level's sessions in one process, a
    level's timings depended on which others were loaded)."""
    embedder = embedder_from_settings(Settings())
    assert isinstance(embedder, OnnxEmbedder)
    embedder.optimization = level
    embedder.embed_queries(questions[:5])  # loads the sessions; first runs allocate
    wall, cpu, vectors = [], [], []
    for question in questions:
        started, used = time.perf_counter(), time.process_time()
        vectors.append(embedder.embed_query(question))
        cpu.append((time.process_time() - used) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    embedder.embed([chunk.text for chunk in chunks[:16]])
    started, used = time.perf_counter(), time.process_time()
    passages = embed_as_ingest(embedder, chunks)
    return {
        "wall_ms": wall,
        "cpu_ms": cpu,
        "passage_s": time.perf_counter() - started,
        "passage_cpu_s": time.process_time() - used,
        "question_vectors": np.stack(vectors),
        "passage_vectors": passages,
    }


def measure(questions: list[str], chunks: list[Chunk], repeats: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every level `repeats` times, in turn (no level always first), each run in a fresh process."""
    runs: dict[Optimization, list[dict[str, Any]]] = {level: [] for level in LEVELS}
    context = multiprocessing.get_context("spawn")
    order = [LEVELS[r % len(LEVELS) :] + LEVELS[: r % len(LEVELS)] for r in range(repeats)]
    for level in tqdm([level for turn in order for level in turn], desc="runs", leave=False):
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            runs[level].append(pool.submit(measure_level, level, questions, chunks).result())
    stats: dict[str, Any] = {}
    for level, done in runs.items():
        seconds = float(np.median([run["passage_s"] for run in done]))
        stats[level] = {
            "wall_ms": latency_stats([ms for run in done for ms in run["wall_ms"]]),
            "cpu_ms": latency_stats([ms for run in done for ms in run["cpu_ms"]]),
            "chunks_per_s": round(len(chunks) / seconds, 1),
            "cpu_s_per_chunk": round(float(np.median([run["passage_cpu_s"] for run in done])) / len(chunks), 4),
        }
    vectors: dict[str, Any] = {
        "question": {level: done[0]["question_vectors"] for level, done in runs.items()},
        "passage": {level: done[0]["passage_vectors"] for level, done in runs.items()},
    }
    return stats, vectors


def agreement(vectors: dict[str, Vectors]) -> dict[str, dict[str, float]]:
    """Cosine of each level's vector with the basic level's vector of the same text: the least and the median."""
    out: dict[str, dict[str, float]] = {}
    for level in LEVELS:
        cosines = (vectors[level] * vectors["basic"]).sum(axis=1)
        out[level] = {"min": round(float(cosines.min()), 4), "median": round(float(np.median(cosines)), 5)}
    return out


def batchmates(embedder: OnnxEmbedder, chunks: list[Chunk]) -> dict[str, float]:
    """Cosine of each passage embedded alone with its vector embedded among its ingest batch (basic level)."""
    embedder._session = embedder.new_session(embedder.threads, optimization="basic")
    together = embed_as_ingest(embedder, chunks)
    alone = np.stack([embedder.embed([chunk.text])[0] for chunk in tqdm(chunks, desc="alone", leave=False)])
    cosines = (together * alone).sum(axis=1)
    return {"min": round(float(cosines.min()), 4), "median": round(float(np.median(cosines)), 5)}


def render(report: dict[str, Any]) -> str:
    cost, base = report["cost"], "basic"
    lines = [
        "# The embedder's onnxruntime graph optimization level",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. Model "
        f"`{report['model']}`. Each level in a process of its own, {report['repeats']} times, the levels in turn: "
        f"{report['questions']} questions from `{report['questions_path']}` embedded one at a time as a request "
        f"embeds them (one intra-op thread), then the first {report['passages']} chunks of `{report['corpus_path']}` "
        f"embedded in ingest's groups, their texts only (a thread per core). The default level is "
        f"`{report['default']}`.",
        "",
        "| level | question CPU ms p50 / mean | question wall ms p50 / p95 | CPU vs basic | passages chunks/s "
        "| passage CPU s per chunk | question cosine with basic, min / median "
        "| passage cosine with basic, min / median |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for level in LEVELS:
        qc, qw, pc = cost[level]["cpu_ms"], cost[level]["wall_ms"], cost[level]
        ratio = qc["mean"] / cost[base]["cpu_ms"]["mean"]
        qa, pa = report["question_agreement"][level], report["passage_agreement"][level]
        lines.append(
            f"| {level} | {qc['p50']} / {qc['mean']} | {qw['p50']} / {qw['p95']} | {ratio:.2f} | {pc['chunks_per_s']} "
            f"| {pc['cpu_s_per_chunk']} | {qa['min']} / {qa['median']} | {pa['min']} / {pa['median']} |"
        )
    mates = report["batchmates"]
    lines += [
        "",
        f"For scale: a passage embedded alone against the same passage embedded among its ingest batch (basic level; "
        f"the int8 model takes its activation ranges per batch): cosine min {mates['min']}, median {mates['median']}.",
    ]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_sample_flags(parser)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--passages", type=int, default=512, help="the corpus's first N chunks")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    settings = Settings()
    embedder = onnx_embedder(parser, settings)
    embedder.embed(["load the tokenizer and the model"])
    questions = sampled_questions(args)
    articles = load_articles(args.corpus).articles
    chunks = [c for a in articles for c in chunk_article(a, settings.chunk_size, settings.chunk_overlap)][
        : args.passages
    ]
    stats, vectors = measure(questions, chunks, args.repeats)
    report = {
        "command": command_line(),
        "machine": machine(),
        "model": embedder.model_id,
        "default": OPTIMIZATION,
        "questions_path": os.path.relpath(args.questions, ROOT),
        "corpus_path": os.path.relpath(args.corpus, ROOT),
        "questions": len(questions),
        "passages": len(chunks),
        "repeats": args.repeats,
        "cost": stats,
        "question_agreement": agreement(vectors["question"]),
        "passage_agreement": agreement(vectors["passage"]),
        "batchmates": batchmates(embedder, chunks),
    }
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
