"""What embedding a request's question texts costs: flat+ (and so hybrid and joint) embeds the question, the part of
it about each named outlet and its claim segments. Measured three ways on the same texts, in one process: all in one
ONNX batch (before 2026-12-03), each text in a run of its own one after the other (2026-12-03), and each text in a run
of its own side by side, one core each (`OnnxEmbedder.embed_queries` since 2026-12-04); also how far the batched
vectors are from the ones each text gets alone, and whether side by side changes any vector. And one question alone,
as most modes embed it: on the session of a thread per core (before 2026-12-05) or on one of one thread
(`embed_queries` since), alone and with as many concurrent callers as a loaded server has requests in flight.

    python -m bench.query_embedding --sample 200 --joint --out bench/query_embedding

Needs only the corpus file (for its outlets) and the questions; with `--joint`, also the default mode end to end on
the stores of the environment (Neo4j and the vector store, as bench/eval_offline.sh builds them), each question
answered both ways in turn, so the two see the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench._questions import add_sample_flags, sampled_questions
from bench._results import ROOT, command_line, finish_report, latency_stats, machine
from graphwire.core.clients.embeddings import BgeSmallOnnxEmbedder, OnnxEmbedder, Vectors
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_CORPUS
from graphwire.retrieval.flat.plus import FlatPlusConfig, query_parts
from graphwire.retrieval.question import OutletGazetteer, question_signals
from graphwire.retrieval.registry import RetrievalContext
from graphwire.schema.model import load_schema


def request_texts(questions: Sequence[str], corpus: Path) -> list[list[str]]:
    """Each question's distinct texts as flat+ embeds them."""
    sources = {str(article.get("source")) for article in json.loads(corpus.read_text()) if article.get("source")}
    gazetteer = OutletGazetteer(sources, schema=load_schema(Settings().schema_path))
    config = FlatPlusConfig()
    out = []
    for question in questions:
        _, clauses, claims = query_parts(question, question_signals(question, gazetteer), config)
        out.append(list(dict.fromkeys([question, *clauses, *claims])))
    return out


def timed(requests: list[list[str]], embed: Callable[[list[str]], Vectors], rounds: int) -> list[float]:
    """Milliseconds per request, the best of `rounds` runs of each (load on a shared machine only adds)."""
    times = []
    for texts in tqdm(requests, desc="requests", leave=False):
        best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            embed(texts)
            best = min(best, (time.perf_counter() - started) * 1000)
        times.append(best)
    return times


def in_one_batch(self: OnnxEmbedder, texts: Sequence[str]) -> Vectors:
    return self.embed([self.query_prefix + text for text in texts])


def one_after_the_other(self: OnnxEmbedder, texts: Sequence[str]) -> Vectors:
    return np.concatenate([self.embed([self.query_prefix + text]) for text in texts])


WAYS = {
    "all in one batch": in_one_batch,
    "each text alone, one after the other": one_after_the_other,
    "each text alone, side by side (embed_queries)": OnnxEmbedder.embed_queries,
}


def one_question(embedder: OnnxEmbedder, questions: list[str], rounds: int, callers: int) -> dict[str, Any]:
    """One question per call on each session: milliseconds alone (best of `rounds`) and questions per second with
    `callers` threads calling at once; and the largest difference between the two sessions' vectors."""
    texts = [embedder.query_prefix + question for question in questions]
    sessions = {"a thread per core": embedder.new_session(0), "one thread": embedder.new_session(1)}
    out: dict[str, Any] = {"callers": callers, "ways": {}}
    for name, session in sessions.items():

        def embed(batch: list[str], session: Any = session) -> Vectors:
            return embedder._encode_batch(batch, session)

        alone = latency_stats(timed([[text] for text in texts], embed, rounds))
        with ThreadPoolExecutor(max_workers=callers) as pool:
            started = time.perf_counter()
            list(pool.map(lambda text: embed([text]), texts * rounds))
            rate = len(texts) * rounds / (time.perf_counter() - started)
        out["ways"][name] = {"alone_ms": alone, "per_second": round(rate, 1)}
    out["max_difference"] = max(
        float(
            np.abs(
                embedder._encode_batch([t], sessions["a thread per core"])
                - embedder._encode_batch([t], sessions["one thread"])
            ).max()
        )
        for t in texts
    )
    return out


def joint_side_by_side(questions: list[str], top_k: int = 10) -> dict[str, dict[str, list[float]]]:
    """The default mode's total and embed-stage milliseconds per question, with the question texts embedded each
    way in turn (rotating which goes first)."""
    side_by_side = OnnxEmbedder.embed_queries
    times: dict[str, dict[str, list[float]]] = {way: {"total": [], "embed": []} for way in WAYS}
    settings = Settings()
    graph = Graph.from_settings(settings)
    try:
        ctx = RetrievalContext(settings, graph=lambda: graph)
        retriever = ctx.retriever("joint")
        ctx.warm()
        retriever.retrieve(questions[0], top_k=top_k)
        for i, question in enumerate(tqdm(questions, desc="joint", leave=False)):
            names = list(WAYS)
            for way in names[i % len(names) :] + names[: i % len(names)]:
                OnnxEmbedder.embed_queries = WAYS[way]  # type: ignore[method-assign]
                started = time.perf_counter()
                result = retriever.retrieve(question, top_k=top_k)
                times[way]["total"].append((time.perf_counter() - started) * 1000)
                times[way]["embed"].append(result.timings_ms.get("embed", 0.0))
    finally:
        OnnxEmbedder.embed_queries = side_by_side  # type: ignore[method-assign]
        graph.close()
    return times


def render(report: dict[str, Any]) -> str:
    lines = [
        "# Embedding a request's question texts: one batch, one text at a time, or side by side",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"{report['questions']} questions from `{report['questions_path']}`, outlets from `{report['corpus_path']}`; "
        f"{report['texts_per_request']} texts per request on average (the question, the part about each named outlet, "
        f"the claim segments), bge-small int8 ONNX, default threads; each request timed {report['rounds']} times, "
        "the best kept.",
        "",
        "| texts embedded | p50 ms | p95 ms | mean ms |",
        "|---|---:|---:|---:|",
    ]
    for name, s in report["latency_ms"].items():
        lines.append(f"| {name} | {s['p50']} | {s['p95']} | {s['mean']} |")
    if "one_question" in report:
        one = report["one_question"]
        lines += [
            "",
            f"One question per call (most modes embed only the question): alone, and {one['callers']} callers at once:",
            "",
            "| session | p50 ms alone | p95 ms alone | questions / s, concurrent callers |",
            "|---|---:|---:|---:|",
        ]
        for name, s in one["ways"].items():
            lines.append(f"| {name} | {s['alone_ms']['p50']} | {s['alone_ms']['p95']} | {s['per_second']} |")
        lines += ["", f"Largest difference of any vector component between the two: {one['max_difference']}."]
    if "joint_ms" in report:
        lines += [
            "",
            "The default mode (`joint`) end to end in process, each question answered every way in turn:",
            "",
            "| texts embedded | total p50 ms | total p95 ms | embed stage p50 ms | embed stage p95 ms |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, s in report["joint_ms"].items():
            t, e = s["total"], s["embed"]
            lines.append(f"| {name} | {t['p50']} | {t['p95']} | {e['p50']} | {e['p95']} |")
    drift = report["batched_vs_alone"]
    lines += [
        "",
        f"Batched vectors against each text's vector alone: cosine min {drift['min_cosine']}, mean "
        f"{drift['mean_cosine']} (the int8 model quantises activations with ranges taken over the whole batch, so a "
        "batched question's vector depends on the other texts of its request). Side by side against one after the "
        f"other: largest difference of any vector component {report['side_by_side_max_difference']}.",
    ]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_sample_flags(parser)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--joint", action="store_true", help="also the default mode end to end, both ways in turn")
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    questions = sampled_questions(args)
    requests = request_texts(questions, args.corpus)
    embedder = BgeSmallOnnxEmbedder()
    prefix = embedder.query_prefix

    def batched(texts: list[str]) -> Vectors:
        return embedder.embed([prefix + text for text in texts])

    def sequential(texts: list[str]) -> Vectors:
        return one_after_the_other(embedder, texts)

    embedder.embed_queries(requests[0])  # the session loaded before the clock starts
    cosines = [
        float(a @ b) for texts in requests for a, b in zip(batched(texts), embedder.embed_queries(texts), strict=True)
    ]
    report = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": os.path.relpath(args.questions, ROOT),  # no folder of this machine in the report
        "corpus_path": os.path.relpath(args.corpus, ROOT),
        "questions": len(questions),
        "rounds": args.rounds,
        "texts_per_request": round(float(np.mean([len(t) for t in requests])), 2),
        "latency_ms": {
            "all in one batch": latency_stats(timed(requests, batched, args.rounds)),
            "each text alone, one after the other": latency_stats(timed(requests, sequential, args.rounds)),
            "each text alone, side by side (embed_queries)": latency_stats(
                timed(requests, embedder.embed_queries, args.rounds)
            ),
        },
        "side_by_side_max_difference": max(
            float(np.abs(sequential(texts) - embedder.embed_queries(texts)).max()) for texts in requests
        ),
        "batched_vs_alone": {"min_cosine": round(min(cosines), 4), "mean_cosine": round(float(np.mean(cosines)), 5)},
    }
    report["one_question"] = one_question(embedder, questions, args.rounds, callers=2 * (os.cpu_count() or 1))
    if args.joint:
        joint = joint_side_by_side(questions)
        report["joint_ms"] = {way: {k: latency_stats(v) for k, v in parts.items()} for way, parts in joint.items()}
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
