"""Can sentence overlap decide a yes/no comparison? For the comparison questions the answerer without an LLM could
judge (two sides, each with a sentence of its outlet's chunks that speaks to its part of the question, from two
articles; no before/after), with and without a word asking whether the reports agree or differ: how often the gold
answer is "Yes", by how much the weaker side's sentence speaks to its part. If stronger support went with more
"Yes", the overlap would be evidence; if the share stays where it is, a "Yes" from it only echoes how often such
questions are yes.

    python -m bench.judgement_evidence --out bench/judgement_evidence

Reads the default mode's retrieval on a live store (the stores of bench/eval_offline.sh).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench._results import ROOT, command_line, finish_report, machine
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_QUESTIONS, SAMPLE_200, load_questions
from graphwire.eval.selection import select
from graphwire.retrieval.answer.evidence import judged_sides
from graphwire.retrieval.answer.judgements import asks_about_change
from graphwire.retrieval.answer.sentences import SentenceLimits, SentencePool
from graphwire.retrieval.registry import RetrievalContext

THRESHOLDS = (0.5, 0.6, 0.67, 0.75, 1.0)
COMPARISON = "comparison_query"


def supports(questions: list[Any], ctx: RetrievalContext, mode: str) -> list[dict[str, Any]]:
    """Per judgeable comparison question with a yes/no gold answer: the gold and the weaker side's support."""
    retriever = ctx.retriever(mode)
    limits = SentenceLimits()
    rows = []
    for q in tqdm(questions, desc=mode):
        gold = q.answer.strip().lower()
        if q.question_type != COMPARISON or gold not in ("yes", "no"):
            continue
        result = retriever.retrieve(q.query, top_k=limits.chunks)
        if result.analysis is not None and result.analysis.order is not None:
            continue  # before/after: judged by dates, not by overlap
        picks = judged_sides(q.query, SentencePool(result, limits), result.analysis)
        support = min(p.support for p in picks) if picks else None
        rows.append({"gold": gold, "support": support, "change": asks_about_change(q.query)})
    return rows


def table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for group, change in (
        ("judged now: no agreement or change word", False),
        ("left: an agreement or change word", True),
    ):
        part = [r for r in rows if r["change"] is change]
        out.append({"questions": f"{group}, all", "n": len(part), "yes": _share(part)})
        judged = [r for r in part if r["support"] is not None]
        for threshold in THRESHOLDS:
            chosen = [r for r in judged if r["support"] >= threshold]
            out.append({"questions": f"{group}, both sides >= {threshold}", "n": len(chosen), "yes": _share(chosen)})
    return out


def _share(rows: list[dict[str, Any]]) -> float | None:
    return round(sum(r["gold"] == "yes" for r in rows) / len(rows), 3) if rows else None


def render(report: dict[str, Any]) -> str:
    lines = [
        "# Sentence overlap and the yes/no comparisons",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. Mode "
        f"`{report['mode']}`, top {report['chunks']} chunks read, the answerer's own sentence scoring "
        "(`retrieval/answer/sentences.py`).",
        "",
    ]
    for name, part in report["sets"].items():
        lines += [f"## {name} (`{part['path']}`, {part['selection']})", "", "| questions | n | gold yes share |"]
        lines.append("|---|---:|---:|")
        lines += [f"| {r['questions']} | {r['n']} | {r['yes']} |" for r in part["table"]]
        lines.append("")
    return "\n".join(lines) + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="joint")
    parser.add_argument("--sample", type=int, default=300, help="questions drawn from the full set (seed 7)")
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    sets = {
        "CS564 sample": (SAMPLE_200, None, 0),
        "MultiHop-RAG, held-out sample": (DEFAULT_QUESTIONS, args.sample, 7),
    }
    settings = Settings()
    graph = Graph.from_settings(settings)
    ctx = RetrievalContext(settings, graph=lambda: graph)
    report: dict[str, Any] = {
        "command": command_line(),
        "machine": machine(),
        "mode": args.mode,
        "chunks": SentenceLimits().chunks,
        "sets": {},
    }
    try:
        for name, (path, size, seed) in sets.items():
            questions = list(select(load_questions(path), sample_size=size, seed=seed))
            rows = supports(questions, ctx, args.mode)
            report["sets"][name] = {
                "path": os.path.relpath(path, ROOT),  # no folder of this machine in the report
                "selection": f"{size} drawn, seed {seed}" if size else "all",
                "table": table(rows),
            }
    finally:
        graph.close()
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
