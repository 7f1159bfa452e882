"""The joint ranking's first places spread over documents (`JointConfig.spread_head`), measured by head length.

python -m bench.spread_head --sample 800 --out bench/spread_head_multihop-rag
python -m bench.spread_head --questions ../shared/data/hotpotqa/questions.json --sample 0 \
    --out bench/spread_head_hotpotqa

`joint` ranks each question once with the rule off; each head length then reorders those same ten chunks
(`retrieval.joint_fusion.spread_head`, as the retriever does) and is scored as `graphwire eval` scores the mode:
fact-scored questions (MultiHop-RAG) by Perfect@4/@10, Hits@4, MRR@10, Recall@2/@5 of the gold facts; title-scored
ones (encyclopedia sets) by the distinct titles' Perfect@2/@5, Recall@2/@5 and MRR, which the rule leaves unchanged by
construction (each document's first chunk keeps its order among the others').
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench._questions import add_sample_flags
from bench._results import command_line, finish_report, machine
from graphwire.cli.common import open_graph_or_exit
from graphwire.core.settings import get_settings
from graphwire.eval.datasets import load_questions
from graphwire.eval.questions import EvalQuestion
from graphwire.eval.scorers import score_retrieval, score_titles
from graphwire.eval.selection import select
from graphwire.retrieval.joint import JointRetriever
from graphwire.retrieval.joint_fusion import spread_head
from graphwire.retrieval.models import RankedChunk
from graphwire.retrieval.registry import RetrievalContext

TOP_K = 10


def fact_scores(chunks: list[RankedChunk], question: EvalQuestion) -> dict[str, float]:
    result = score_retrieval([c.text for c in chunks], [c.title for c in chunks], question.gold_facts, [])
    return {
        "Perfect@4": result.perfect_at_4,
        "Perfect@10": result.perfect_at_10,
        "Hits@4": result.hits_at_4,
        "MRR@10": result.mrr_at_10,
        "Recall@2": result.recall_at_2,
        "Recall@5": result.recall_at_5,
    }


def title_scores(chunks: list[RankedChunk], question: EvalQuestion) -> dict[str, float]:
    result = score_titles([c.title for c in chunks], question.gold_titles)
    return {
        "Perfect@2": result.perfect_at_2,
        "Perfect@5": result.perfect_at_5,
        "Recall@2": result.recall_at_2,
        "Recall@5": result.recall_at_5,
        "MRR": result.mrr,
    }


def measure(joint: JointRetriever, questions: list[EvalQuestion], heads: list[int], titled: bool) -> dict[str, Any]:
    """Per head length: each score's mean over the questions, per question type too, and how many questions' first
    four chunks it changed."""
    joint.config = joint.config.model_copy(update={"spread_head": 0})
    sums: dict[int, dict[str, dict[str, list[float]]]] = {h: defaultdict(lambda: defaultdict(list)) for h in heads}
    changed = dict.fromkeys(heads, 0)
    for question in tqdm(questions, desc="questions", file=sys.stderr, mininterval=10):
        chunks = joint.retrieve(question.query, TOP_K).chunks
        by_position = dict(enumerate(chunks))
        for head in heads:
            order = spread_head(list(by_position), [c.document_id for c in chunks], head)
            reordered = [by_position[i] for i in order]
            changed[head] += order[:4] != list(range(min(4, len(chunks))))
            scores = title_scores(reordered, question) if titled else fact_scores(reordered, question)
            for group in ("all", question.question_type):
                for name, value in scores.items():
                    sums[head][group][name].append(float(value))
    return {
        "heads": {
            str(h): {
                "changed_first_four": changed[h],
                "groups": {g: {k: round(float(np.mean(v)), 4) for k, v in s.items()} for g, s in sums[h].items()},
                "scored": {g: len(next(iter(s.values()))) for g, s in sums[h].items()},
            }
            for h in heads
        }
    }


def render(report: dict[str, Any]) -> str:
    heads = report["heads"]
    first = next(iter(heads.values()))
    names = list(first["groups"]["all"])
    lines = [
        "# The joint ranking's first places spread over documents, by head length",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"{report['questions']} ({report['scored']} scored questions, {report['scoring']}). Head 0 is the ranking "
        "with the rule off; each other head reorders the same ten chunks (`spread_head`: each prefix of the first "
        "`head` places holds at most half its places, rounded up, from one document).",
        "",
        "| head | group | scored | " + " | ".join(names) + " | first four changed |",
        "|---:|---|---:|" + "---:|" * len(names) + "---:|",
    ]
    for head, row in heads.items():
        for group, means in row["groups"].items():
            changed = str(row["changed_first_four"]) if group == "all" else ""
            cells = " | ".join(f"{means[n]:.3f}" for n in names)
            lines.append(f"| {head} | {group} | {row['scored'][group]} | {cells} | {changed} |")
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_sample_flags(parser)
    parser.add_argument("--heads", default="0,2,4,6", help="head lengths to compare, comma-separated (0 = off)")
    parser.add_argument("--out", type=Path, required=True, help="writes <out>.json and <out>.md")
    parser.add_argument("--notes", type=Path, help="markdown appended to the report")
    args = parser.parse_args()
    heads = [int(h) for h in args.heads.split(",")]
    settings = get_settings()
    graph = open_graph_or_exit(settings)
    try:
        question_set = load_questions(args.questions)
        chosen = [q for q in select(question_set, sample_size=args.sample or None) if not q.is_null]
        titled = not chosen[0].gold_facts
        joint = RetrievalContext(settings, graph=lambda: graph).retriever("joint")
        if not isinstance(joint, JointRetriever):
            parser.error("the joint mode is not a JointRetriever")
        report = {
            "command": command_line(),
            "machine": machine(),
            "questions": f"`{args.questions.name}`, sample {args.sample or 'all'} (seed 0)",
            "scored": len(chosen),
            "scoring": "title-scored" if titled else "fact-scored",
            **measure(joint, chosen, heads, titled),
        }
        finish_report(args.out, report, render, args.notes)
        print(render(report))
    finally:
        graph.close()


if __name__ == "__main__":
    main()
