"""The order of a news ranking's first chunks (`FlatPlusConfig.order_depth`, retrieval/flat/plus.py `part_ranks`):
fused, or by the ranks the parts of the question give each chunk (each outlet's clause among that outlet's chunks,
each claim, dense and BM25; the graph's chunk ranking too when it guides, and each claim among the chunks naming the
bridge entity in joint), summed as reciprocal ranks (`order_by_sum`) or the best of them, on MultiHop-RAG. Rows
for flat+ alone (`flat_plus` mode) and for joint's news ranking (flat+ guided by the five-stage graph, with its bridge
feedback); every row ranks from the same per-question features (one embedding, one graph pass per question).

    python -m bench.part_rank_order --sample 800 --out bench/part_rank_order   # against a store built from corpus.json
    python -m bench.part_rank_order --held-out 800 --out bench/part_rank_order_held_out   # the other questions
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench._results import machine
from bench._scoring import positions_scores
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_QUESTIONS, load_questions
from graphwire.eval.questions import EvalQuestion
from graphwire.eval.selection import select
from graphwire.retrieval.flat.fusion import top_positions
from graphwire.retrieval.flat.plus import FlatPlusConfig
from graphwire.retrieval.joint import JointRetriever
from graphwire.retrieval.registry import RetrievalContext
from graphwire.retrieval.timing import StageTimer

BASE = FlatPlusConfig()
FUSED = BASE.model_copy(update={"order_depth": 0})
BEST = BASE.model_copy(update={"order_by_sum": False})  # the best rank, ties by the next best
DEPTH = BASE.order_depth
# the earlier defaults, alone and together: the best-rank order of the first 30, three claim picks
EARLIER = {
    f"best-rank order of the first {DEPTH}": BEST,
    "three claim picks": BASE.model_copy(update={"claim_picks": 3}),
    "best-rank order of the first 30": BEST.model_copy(update={"order_depth": 30}),
    "best-rank order of the first 30, three claim picks": BEST.model_copy(update={"order_depth": 30, "claim_picks": 3}),
}
# name -> (flat+ config, guided by the graph as joint's news branch)
ROWS: dict[str, tuple[FlatPlusConfig, bool]] = {
    "flat_plus, fused order": (FUSED, False),
    f"flat_plus, part-rank order of the first {DEPTH} (default)": (BASE, False),
    **{
        f"flat_plus, part-rank order of the first {d}": (BASE.model_copy(update={"order_depth": d}), False)
        for d in (10, 20, 30)
    },
    **{f"flat_plus, {name}": (config, False) for name, config in EARLIER.items()},
    "joint, fused order": (FUSED, True),
    "joint, part-rank order without the graph's ranking": (BASE.model_copy(update={"order_guidance_place": 0}), True),
    "joint, the graph's first chunk beside the parts' first": (
        BASE.model_copy(update={"order_guidance_place": 1}),
        True,
    ),
    "joint, the graph's first chunk beside the parts' third": (
        BASE.model_copy(update={"order_guidance_place": 3}),
        True,
    ),
    "joint, part-rank order without dated clauses": (BASE.model_copy(update={"order_by_date": False}), True),
    "joint, the claims' dense rankings kept beside the graph's ranking": (
        BASE.model_copy(update={"order_claim_dense_guided": True}),
        True,
    ),
    "joint, part-rank order without the claims among the chunks naming the bridge": (
        BASE.model_copy(update={"order_by_bridge": False}),
        True,
    ),
    f"joint, part-rank order of the first {DEPTH} (default)": (BASE, True),
    **{
        f"joint, part-rank order of the first {d}": (BASE.model_copy(update={"order_depth": d}), True)
        for d in (5, 10, 15, 20, 30, 60, 100)
    },
    **{f"joint, {name}": (config, True) for name, config in EARLIER.items()},
}
METRICS = ("perfect_at_10", "perfect_at_4", "hits_at_4", "mrr_at_10", "recall_at_2", "recall_at_5", "map_at_10")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--sample", type=int, default=800)
    parser.add_argument(
        "--held-out", type=int, default=0, help="score the questions outside the seed-0 sample of this size instead"
    )
    parser.add_argument("--out", type=Path, default=Path("bench/part_rank_order"))
    args = parser.parse_args()
    settings = Settings()
    graph = Graph.from_settings(settings)
    joint = RetrievalContext(settings, graph=lambda: graph).retriever("joint")
    assert isinstance(joint, JointRetriever)
    flat = joint.flat
    snapshot = flat.index.snapshot()
    alignment = joint.align(snapshot, joint.ppr.walk().snapshot)
    questions = [q for q in _questions(args.questions, args.sample, args.held_out) if not q.is_null]
    scores: dict[str, dict[str, list[float]]] = {row: {m: [] for m in METRICS} for row in ROWS}
    by_type: dict[str, dict[str, dict[str, list[float]]]] = {row: {} for row in ROWS}
    started = time.perf_counter()
    for q in tqdm(questions, desc="questions"):
        features = flat.features(q.query, snapshot, StageTimer())
        graph_ids = [c.chunk_id for c in joint.graph.retrieve(q.query, 10).chunks]
        for row, (config, guided) in ROWS.items():
            if guided:
                ranked, _ = joint.guided_flat(q.query, features, graph_ids, alignment, 10, config)
                positions = top_positions(ranked, 10)
            else:
                positions, _ = flat.rank(snapshot, features, 10, None, config)
            for metric, value in positions_scores(snapshot, positions, q, METRICS).items():
                scores[row][metric].append(value)
                by_type[row].setdefault(q.question_type, {}).setdefault(metric, []).append(value)
    summary: dict[str, Any] = {
        "command": "python -m bench.part_rank_order "
        + (f"--held-out {args.held_out}" if args.held_out else f"--sample {args.sample}"),
        "machine": machine(),
        "questions_scored": len(questions),
        "seconds": round(time.perf_counter() - started, 1),
        "rows": {row: _means(values) for row, values in scores.items()},
        "halves": {row: [_means(_half(values, h)) for h in (0, 1)] for row, values in scores.items()},
        "by_type": {row: {t: _means(v) for t, v in types.items()} for row, types in by_type.items()},
    }
    args.out.with_suffix(".json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(render(summary), encoding="utf-8")
    graph.close()


def _questions(path: Path, size: int, held_out: int) -> list[EvalQuestion]:
    """The seed-0 sample of `size` questions, or, with `held_out`, every question outside the sample of that size (the
    choices above were made on the sample)."""
    question_set = load_questions(path)
    if not held_out:
        return select(question_set, sample_size=size)
    seen = {id(q) for q in select(question_set, sample_size=held_out)}
    return [q for q in question_set.questions if id(q) not in seen]


def _half(values: dict[str, list[float]], half: int) -> dict[str, list[float]]:
    """The first or second half of the scored questions (in sample order): a depth chosen on one half, seen on the
    other."""
    cut = len(next(iter(values.values()))) // 2
    return {m: v[:cut] if half == 0 else v[cut:] for m, v in values.items()}


def _means(values: dict[str, list[float]]) -> dict[str, float]:
    return {m: round(float(np.mean(v)), 4) for m, v in values.items()}


def render(summary: dict[str, Any]) -> str:
    head = "| row | " + " | ".join(METRICS) + " |"
    rule = "|---|" + "---:|" * len(METRICS)
    lines = [
        "# The order of a news ranking's first chunks (MultiHop-RAG, real corpus)",
        "",
        f"`{summary['command']}` ({summary['questions_scored']} scored questions, seed 0; {summary['machine']}). "
        "Fact-scored as the official `retrieval_evaluate.py` (Recall@k: the share of gold facts in the top k "
        "chunks). All rows rank from the same features; `joint` rows are its news ranking before the `linked` "
        "signal, which added no page to any question of the 800-question evaluation (`linked_pages` 0 in every "
        "record).",
        "",
        head,
        rule,
    ]
    lines += [f"| {row} | " + " | ".join(f"{v[m]:.3f}" for m in METRICS) + " |" for row, v in summary["rows"].items()]
    halves = ("perfect_at_10", "perfect_at_4", "mrr_at_10", "recall_at_2")
    lines += ["", "By half of the scored questions (first / second):", "", "| row | " + " | ".join(halves) + " |"]
    lines += ["|---|" + "---:|" * len(halves)]
    for row, (one, two) in summary["halves"].items():
        lines.append(f"| {row} | " + " | ".join(f"{one[m]:.3f} / {two[m]:.3f}" for m in halves) + " |")
    lines += [
        "",
        "By question type:",
        "",
        head.replace("| row |", "| row | type |"),
        rule.replace("|---|", "|---|---|"),
    ]
    for row, types in summary["by_type"].items():
        lines += [
            f"| {row} | {t} | " + " | ".join(f"{v[m]:.3f}" for m in METRICS) + " |" for t, v in sorted(types.items())
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
