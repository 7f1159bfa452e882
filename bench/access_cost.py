"""What document-level access costs a retrieval: every mode asked each question twice, side by side, by a caller
who reads everything and by a reader of one of 10 groups, with every document readable by 5 of the 10 groups (so
each reader reads half the documents). The store's access lists are set for the run and put back as they were.

    python -m bench.access_cost --sample 200 --out bench/access_cost_multihop-rag
    python -m bench.access_cost --questions ../shared/data/hotpotqa/questions.json --out bench/access_cost_hotpotqa
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench._results import ROOT, command_line, finish_report, latency_stats, machine
from graphwire.core.access import EVERYONE, Reader
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.store_version import bump
from graphwire.eval.datasets import DEFAULT_QUESTIONS, load_questions
from graphwire.eval.selection import select
from graphwire.retrieval.access import AccessMap, access_map, retrieve_as
from graphwire.retrieval.registry import RetrievalContext, mode_names

GROUPS = 10
PAGE = 500


def stored_access(graph: Graph) -> dict[str, list[str] | None]:
    """Every document's access list (None: everyone), read page by page as an admin."""
    found: dict[str, list[str] | None] = {}
    filters = {"source": None, "published_after": None, "published_before": None, "readers": None}
    while True:
        rows = graph.read("documents/list", **filters, limit=PAGE, offset=len(found))
        for row in rows:
            found[row["id"]] = graph.read("documents/get", document_id=row["id"], readers=None)[0]["access"]
        if len(rows) < PAGE:
            return found


def half_open(ids: list[str]) -> dict[str, list[str]]:
    """Document i is readable by the 5 groups g with (i + g) % 10 < 5: each group reads half the documents."""
    return {doc: [f"group-{g}" for g in range(GROUPS) if (i + g) % GROUPS < GROUPS // 2] for i, doc in enumerate(ids)}


@contextmanager
def access_lists(graph: Graph, lists: Mapping[str, list[str] | None]) -> Iterator[None]:
    before = stored_access(graph)
    try:
        for doc, access in tqdm(lists.items(), desc="access lists"):
            graph.write("access/set_document_access", id=doc, access=access)
        bump(graph)  # readers in other processes see the change
        yield
    finally:
        for doc, access in before.items():
            graph.write("access/set_document_access", id=doc, access=access)
        bump(graph)


def rss_mb() -> float:
    """This process's resident memory, MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def scopes(ctx: RetrievalContext, modes: list[str], query: str, top_k: int) -> dict[str, Any]:
    """Each group's first question in every mode: it builds the group's scoped views (retrieval/scope.py); timed
    apart from the questions, with the memory they hold."""
    before = rss_mb()
    took = []
    for g in range(GROUPS):
        started = time.perf_counter()
        for mode in modes:
            retrieve_as(ctx, mode, query, top_k, Reader.of([f"group-{g}"]))
        took.append((time.perf_counter() - started) * 1000)
    return {"first_ms": latency_stats(took), "rss_mb": round(rss_mb() - before, 1)}


def measure(ctx: RetrievalContext, modes: list[str], queries: list[str], top_k: int) -> dict[str, dict[str, Any]]:
    ctx.warm()
    for mode in modes:
        retrieve_as(ctx, mode, queries[0], top_k, EVERYONE)
    runs: dict[str, dict[str, Any]] = {m: {"open": [], "restricted": [], "returned": []} for m in modes}
    for i, query in enumerate(tqdm(queries, desc="questions")):
        reader = Reader.of([f"group-{i % GROUPS}"])
        turn = modes[i % len(modes) :] + modes[: i % len(modes)]  # no mode always runs first
        for mode in turn:
            for kind, who in (("open", EVERYONE), ("restricted", reader))[:: 1 if i % 2 else -1]:
                started = time.perf_counter()
                result = retrieve_as(ctx, mode, query, top_k, who)
                runs[mode][kind].append((time.perf_counter() - started) * 1000)
                if kind == "restricted":
                    runs[mode]["returned"].append(len(result.chunks))
    return runs


def routes(ctx: RetrievalContext, queries: list[str], top_k: int) -> dict[str, int]:
    """The mode `auto` picks for each question, open and in the question's reader's scope (the router reads only what
    the reader may read, so it may pick another mode): counts of `open -> restricted` pairs."""
    pairs: dict[str, int] = {}
    for i, query in enumerate(queries):
        scope = access_map(ctx).scope(Reader.of([f"group-{i % GROUPS}"]))
        picked = [
            view.retriever("auto").retrieve(query, top_k=top_k).details["router"]["mode"]
            for view in (ctx, ctx.scoped(scope) if scope is not None else ctx)
        ]
        pair = " -> ".join(picked)
        pairs[pair] = pairs.get(pair, 0) + 1
    return dict(sorted(pairs.items(), key=lambda kv: -kv[1]))


def summary(runs: dict[str, dict[str, Any]], top_k: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for mode, run in runs.items():
        opened, restricted = latency_stats(run["open"]), latency_stats(run["restricted"])
        out[mode] = {
            "open": opened,
            "restricted": restricted,
            "p95_ratio": round(restricted["p95"] / opened["p95"], 2),
            "full_pages": round(float(np.mean([n >= top_k for n in run["returned"]])), 3),
        }
    return out


def render(report: dict[str, Any]) -> str:
    lines = [
        "# What document-level access costs a retrieval",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"{report['questions']} questions from `{report['questions_path']}`, {report['documents']} documents, top_k "
        f"{report['top_k']}, default settings. Each document is readable by 5 of {GROUPS} groups; each question is "
        "asked in every mode by a caller who reads everything (`open`) and by a reader of one group (`restricted`, "
        "half the documents), in alternating order. `full pages`: the share of restricted retrievals that still "
        "returned top_k chunks.",
        "",
        "| mode | open p50 ms | open p95 ms | restricted p50 ms | restricted p95 ms | p95 restricted / open "
        "| full pages |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, s in report["latency_ms"].items():
        o, r = s["open"], s["restricted"]
        lines.append(
            f"| {mode} | {o['p50']} | {o['p95']} | {r['p50']} | {r['p95']} | {s['p95_ratio']} | {s['full_pages']} |"
        )
    m = report["access_map"]
    lines += [
        "",
        f"The access map (who may read what, read once per graph version before a restricted reader's first "
        f"question): {m['read_ms']} ms to read, {m['chunks']} chunks and {m['sources_closed']} sources with no open "
        "document; the entities a result names are read as they come and kept for the graph version (included in "
        "the restricted timings above).",
        "",
        f"A restricted reader's rankings are computed over only what it may read (retrieval/scope.py): the first "
        f"question of each of the {GROUPS} groups builds its scope's views of the shared state (flat index, PPR "
        f"walk graph, name index) for all {len(report['modes'])} modes, timed apart from the table above: "
        f"p50 {report['scopes']['first_ms']['p50']} ms, p95 {report['scopes']['first_ms']['p95']} ms a group; the "
        f"{GROUPS} scopes' views hold {report['scopes']['rss_mb']} MB more resident memory.",
    ]
    if report.get("auto_routes"):
        pairs = ", ".join(f"{pair} {n}" for pair, n in report["auto_routes"].items())
        lines += [
            "",
            "`auto` routes each question to one mode; the router reads only what the reader may read, so a restricted "
            f"reader's question may go to another mode than the open caller's (open -> restricted: {pairs}). Its p95 "
            "ratio is the cost of the modes it picks, whose own ratios are in the rows above.",
        ]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--sample", type=int, default=0, help="a random sample of N questions (seed 0); 0 = all")
    parser.add_argument("--modes", default=",".join(mode_names()))
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    settings = Settings()
    graph = Graph.from_settings(settings)
    try:
        queries = [q.query for q in select(load_questions(args.questions), sample_size=args.sample or None)]
        documents = sorted(stored_access(graph))
        with access_lists(graph, half_open(documents)):
            started = time.perf_counter()
            access = AccessMap.read(graph)
            map_ms = round((time.perf_counter() - started) * 1000, 1)
            ctx = RetrievalContext(settings, graph=lambda: graph)
            runs = measure(ctx, modes, queries[:1], args.top_k)  # warm the shared state first
            built = scopes(ctx, modes, queries[0], args.top_k)
            runs = measure(ctx, modes, queries, args.top_k)
            routed = routes(ctx, queries, args.top_k) if "auto" in modes else {}
    finally:
        graph.close()
    report = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": os.path.relpath(args.questions, ROOT),
        "questions": len(queries),
        "documents": len(documents),
        "top_k": args.top_k,
        "modes": modes,
        "latency_ms": summary(runs, args.top_k),
        "scopes": built,
        "auto_routes": routed,
        "access_map": {
            "read_ms": map_ms,
            "chunks": len(access.chunks),
            "sources_closed": len(access.sources),
        },  # fmt: skip
    }
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
