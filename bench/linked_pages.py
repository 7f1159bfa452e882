"""joint's `linked` signal (retrieval/joint.py): the pages the first-ranked passage links to, in flat+'s order, fused
into either ranking (the walks of a question that names a title entity, the guided flat+ of one that does not). Off
against its weight and its depth (how many of the first ranking's chunks are followed), on a title-scored set, every
other setting the default.

Run against a store holding the set's corpus (NEO4J_URI, CHROMA_PATH of `graphwire ingest <corpus> --extractor
offline`):

    python -m bench.linked_pages --questions ../shared/data/hotpotqa/questions.json --out bench/linked_pages_hotpotqa
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bench._results import command_line, machine, show_and_write
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.eval.datasets import load_questions
from graphwire.eval.questions import TitleQuestion
from graphwire.eval.scorers import score_titles
from graphwire.retrieval.joint import JointConfig, JointRetriever
from graphwire.retrieval.registry import RetrievalContext

METRICS = ("perfect_at_2", "perfect_at_5", "perfect_at_8", "recall_at_2", "recall_at_5", "mrr")
DEFAULT = JointConfig()
GRID = [(0.0, DEFAULT.linked_from)] + [(w, 1) for w in (0.5, 1.0, 1.5)] + [(1.0, d) for d in (2, 3)]


def run(base: JointRetriever, questions: list[TitleQuestion], weight: float, depth: int) -> dict[str, float]:
    retriever = JointRetriever(base.flat, base.ppr, base.graph, JointConfig(linked_weight=weight, linked_from=depth))
    sums = dict.fromkeys(METRICS, 0.0)
    for question in questions:
        chunks = retriever.retrieve(question.query, 10).chunks
        score = score_titles([c.title for c in chunks], question.gold_titles)
        for metric in METRICS:
            sums[metric] += getattr(score, metric)
    return {m: sums[m] / len(questions) for m in METRICS}


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# joint's linked pages on `{report['questions_path']}`: off, by weight and by depth",
        "",
        f"Command: `{report['command']}`.",
        f"Machine: {report['machine']}.",
        "",
        f"{report['questions']} questions, top 10 chunks, scored by distinct document title as `graphwire eval` "
        f"scores title sets. Defaults: weight {DEFAULT.linked_weight}, depth {DEFAULT.linked_from} "
        "(`JointConfig.linked_weight`, `JointConfig.linked_from`); weight 0 is joint without the signal.",
        "",
        "| weight | depth | " + " | ".join(METRICS) + " |",
        "|---:|---:|" + "---:|" * len(METRICS),
    ]
    for r in report["runs"]:
        mark = " (default)" if (r["weight"], r["depth"]) == (DEFAULT.linked_weight, DEFAULT.linked_from) else ""
        values = " | ".join(f"{r['result'][m]:.3f}" for m in METRICS)
        lines.append(f"| {r['weight']}{mark} | {r['depth']} | {values} |")
    return "\n".join([*lines, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    questions = [q for q in load_questions(args.questions).questions if isinstance(q, TitleQuestion) and q.titles]
    settings = Settings()
    graph = Graph.from_settings(settings)
    base = RetrievalContext(settings, graph=lambda: graph).retriever("joint")
    assert isinstance(base, JointRetriever)
    report: dict[str, Any] = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": str(args.questions),
        "questions": len(questions),
        "runs": [{"weight": w, "depth": d, "result": run(base, questions, w, d)} for w, d in GRID],
    }
    show_and_write(args.out, report, markdown(report))


if __name__ == "__main__":
    main()
