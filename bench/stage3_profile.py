"""Stage 3's reads on a real store, before and after a change of their statements: db hits (which do not depend on
the machine's load) and time, per question, with Neo4j's PROFILE.

For each question, stages 1-2 of the checkout's graph retriever give the matched entities; then the stage 3
statements of `--before` (a git revision) and of the checkout run on the same parameters, each twice in a
rolled-back transaction (the second run is reported). A statement that did not exist at `--before` is skipped
there, so a split statement is compared by the sum of its parts.

    python -m bench.stage3_profile --before e23b198 --sample 200 \\
        --questions ../shared/data/multihop-rag/MultiHopRAG.json --out bench/stage3_profile_multihop-rag
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, cast

import numpy as np
from tqdm import tqdm

from bench._results import ROOT, command_line, finish_report, machine
from bench.cypher_profile import db_hits, old_text, profiled
from graphwire import cypher
from graphwire.core.clients.graph import READ, Graph
from graphwire.core.settings import Settings
from graphwire.eval.datasets import load_questions
from graphwire.eval.selection import select
from graphwire.retrieval.graph.retriever import GraphRetriever
from graphwire.retrieval.graph.templates import query_params
from graphwire.retrieval.registry import RetrievalContext

STATEMENTS = ("retrieve/facts_and_candidates", "retrieve/facts", "retrieve/candidates")


def statement_text(rev: str | None, name: str) -> str | None:
    """The statement at `rev` (the checkout's when None), or None where it does not exist."""
    if rev is None:
        return cypher.PRODUCT.query(name) if name in cypher.names() else None
    return old_text(rev, name)


def parameters(retriever: GraphRetriever, question: str) -> dict[str, Any] | None:
    """What the checkout's stage 3 sends for `question`, both statements' parameters in one (None when nothing
    matched)."""
    index = retriever.names.get()
    analysis = retriever.aliases.run(question, index)
    matches = retriever.matcher.match(analysis, index)
    if not matches:
        return None
    templates = retriever.templates
    params = query_params(analysis, matches)
    sources = index.sources_of(m.key for m in matches if m.label == templates.publisher)
    return {
        **templates.facts_params(params, pair=len(matches) >= 2),
        **templates.candidates_params(params, matches, sources),
    }


def profile(graph: Graph, text: str, params: dict[str, Any]) -> tuple[int, float, list[Any]]:
    """(db hits, ms, rows) of the second of two runs, each rolled back."""
    plan, elapsed_ms, records = profiled(graph, text, params, READ)
    return db_hits(plan), elapsed_ms, [record.data() for record in records]


def side(graph: Graph, texts: dict[str, str], params: dict[str, Any]) -> dict[str, Any]:
    """Every statement of one side on one question: db hits and ms summed, and what they returned."""
    hits, ms, facts, candidates = 0, 0.0, None, None
    for text in texts.values():
        h, t, rows = profile(graph, text, params)
        hits, ms = hits + h, ms + t
        [row] = rows
        facts = row.get("facts", facts)
        candidates = row.get("candidates", candidates)
    return {"hits": hits, "ms": ms, "same_as": (facts, candidates)}


def stats(values: list[float]) -> dict[str, float]:
    return {
        "sum": round(float(np.sum(values)), 1),
        "p50": round(float(np.percentile(values, 50)), 1),
        "p95": round(float(np.percentile(values, 95)), 1),
        "max": round(float(np.max(values)), 1),
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        "# Stage 3's reads before and after, PROFILE on a real store",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"{report['profiled']} of {report['questions']} questions from `{report['questions_path']}` matched an entity "
        f"(the others run no stage 3). Before: `{report['before_rev']}` ({', '.join(report['before_statements'])}); "
        f"after: this commit ({', '.join(report['after_statements'])}). Each statement ran twice in a rolled-back "
        "transaction; the second run is reported. Times are summed over a side's statements and include PROFILE's "
        "own overhead: db hits are the measure that does not depend on load.",
        "",
        "| side | db hits: sum | p50 | p95 | max | ms: p50 | p95 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in ("before", "after"):
        hits, ms = report[name]["hits"], report[name]["ms"]
        lines.append(
            f"| {name} | {hits['sum']:,.0f} | {hits['p50']:,.0f} | {hits['p95']:,.0f} | {hits['max']:,.0f} | "
            f"{ms['p50']} | {ms['p95']} |"
        )
    lines += ["", f"Results identical on every question: {report['identical']} ({report['differing']} differ)."]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="git revision whose stage 3 statements are 'before'")
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=200, help="questions drawn (seed 0); 0: all")
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    before = {n: t for n in STATEMENTS if (t := statement_text(args.before, n)) is not None}
    after = {n: t for n in STATEMENTS if (t := statement_text(None, n)) is not None}
    settings = Settings()
    graph = Graph.from_settings(settings)
    results: dict[str, dict[str, list[float]]] = {s: {"hits": [], "ms": []} for s in ("before", "after")}
    differing, questions = 0, [q.query for q in select(load_questions(args.questions), sample_size=args.sample or None)]
    try:
        retriever = RetrievalContext(settings, graph=lambda: graph).retriever("graph")
        primary = cast(GraphRetriever, getattr(retriever, "primary", retriever))
        for question in tqdm(questions, desc="questions"):
            params = parameters(primary, question)
            if params is None:
                continue
            sides = {"before": side(graph, before, params), "after": side(graph, after, params)}
            for name, measured in sides.items():
                results[name]["hits"].append(measured["hits"])
                results[name]["ms"].append(measured["ms"])
            differing += sides["before"]["same_as"] != sides["after"]["same_as"]
    finally:
        graph.close()
    report: dict[str, Any] = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": os.path.relpath(args.questions, ROOT),
        "questions": len(questions),
        "profiled": len(results["after"]["hits"]),
        "before_rev": args.before,
        "before_statements": list(before),
        "after_statements": list(after),
        **{name: {k: stats(v) for k, v in measured.items()} for name, measured in results.items()},
        "identical": differing == 0,
        "differing": differing,
    }
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
