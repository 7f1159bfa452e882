"""What each news ingredient of `joint` earns on MultiHop-RAG: flat+'s outlet boost, date boost, outlet picks and claim
picks, and the five-stage graph's chunk ranking (its entity, REPORTED_BY publication and Date-layer matches) as
guidance. Each row switches one ingredient off; every row ranks from the same per-question features (one embedding,
one graph pass per question), so the rows differ only by the rule.

    python -m bench.news_ablation --sample 800 --out bench/news_ablation   # against a store built from corpus.json
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
from graphwire.eval.selection import select
from graphwire.retrieval.flat.common import Guidance
from graphwire.retrieval.flat.plus import FlatPlusConfig, FlatPlusRetriever
from graphwire.retrieval.joint import JointConfig, JointRetriever
from graphwire.retrieval.registry import RetrievalContext
from graphwire.retrieval.timing import StageTimer

BASE = FlatPlusConfig()
NO_EXTRAS = BASE.model_copy(
    update={
        "named_boost": 0.0,
        "unlabelled_boost": 0.0,
        "date_boost": 0.0,
        "max_picks": 0,
        "claim_picks": 0,
        "order_depth": 0,
    }
)
# name -> (flat+ config, graph guidance weight; 0 = none)
ROWS: dict[str, tuple[FlatPlusConfig, float]] = {
    "joint (everything)": (BASE, JointConfig().guidance.guidance_weight),
    "- graph guidance (= flat_plus)": (BASE, 0.0),
    "- outlet boost": (BASE.model_copy(update={"named_boost": 0.0, "unlabelled_boost": 0.0}), 0.5),
    "- date boost": (BASE.model_copy(update={"date_boost": 0.0, "pick_date_boost": 0.0}), 0.5),
    "- one pick per named outlet": (BASE.model_copy(update={"max_picks": 0}), 0.5),
    "- one pick per claim": (BASE.model_copy(update={"claim_picks": 0}), 0.5),
    "- part-rank order of the first chunks": (BASE.model_copy(update={"order_depth": 0}), 0.5),
    "- the graph's ranking in the part-rank order": (BASE.model_copy(update={"order_guidance_place": 0}), 0.5),
    "- every flat+ extra (RRF of dense and BM25 + graph guidance)": (NO_EXTRAS, 0.5),
    "- every flat+ extra and the graph (= fused)": (NO_EXTRAS, 0.0),
    "graph guidance weight 0.25": (BASE, 0.25),
    "graph guidance weight 1.0": (BASE, 1.0),
}
METRICS = ("perfect_at_10", "perfect_at_4", "hits_at_4", "hits_at_10", "mrr_at_10", "recall_at_2", "recall_at_5")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--sample", type=int, default=800)
    parser.add_argument("--out", type=Path, default=Path("bench/news_ablation"))
    args = parser.parse_args()
    settings = Settings()
    graph = Graph.from_settings(settings)
    ctx = RetrievalContext(settings, graph=lambda: graph)
    joint = ctx.retriever("joint")
    assert isinstance(joint, JointRetriever) and isinstance(joint.flat, FlatPlusRetriever)
    flat = joint.flat
    snapshot = flat.index.snapshot()
    questions = [q for q in select(load_questions(args.questions), sample_size=args.sample) if not q.is_null]
    scores: dict[str, dict[str, list[float]]] = {row: {m: [] for m in METRICS} for row in ROWS}
    by_type: dict[str, dict[str, list[float]]] = {}
    started = time.perf_counter()
    for q in tqdm(questions, desc="questions"):
        features = flat.features(q.query, snapshot, StageTimer())
        graph_ids = [c.chunk_id for c in joint.graph.retrieve(q.query, 10).chunks]
        for row, (config, weight) in ROWS.items():
            guidance = Guidance(chunk_ids=graph_ids, weight=weight) if weight and graph_ids else None
            positions, _ = flat.rank(snapshot, features, 10, guidance, config)
            for metric, value in positions_scores(snapshot, positions, q, METRICS).items():
                scores[row][metric].append(value)
                if metric == "perfect_at_10":
                    by_type.setdefault(row, {}).setdefault(q.question_type, []).append(value)
    summary: dict[str, Any] = {
        "command": f"python -m bench.news_ablation --sample {args.sample}",
        "machine": machine(),
        "questions_scored": len(questions),
        "seconds": round(time.perf_counter() - started, 1),
        "rows": {row: {m: round(float(np.mean(v)), 4) for m, v in values.items()} for row, values in scores.items()},
        "perfect_at_10_by_type": {
            row: {t: round(float(np.mean(v)), 4) for t, v in types.items()} for row, types in by_type.items()
        },
    }
    args.out.with_suffix(".json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(render(summary), encoding="utf-8")
    graph.close()


def render(summary: dict[str, Any]) -> str:
    types = sorted(next(iter(summary["perfect_at_10_by_type"].values())))
    head = "| row | " + " | ".join(METRICS) + " | " + " | ".join(f"{t} P@10" for t in types) + " |"
    lines = [
        "# What each news ingredient of `joint` earns (MultiHop-RAG, real corpus)",
        "",
        f"`{summary['command']}` ({summary['questions_scored']} scored questions, seed 0; {summary['machine']}). "
        "Fact-scored as the official `retrieval_evaluate.py` (Recall@k: the share of gold facts in the top k "
        "chunks). Each row switches one ingredient off; all rows rank from the same features. The rows rank as "
        "joint's news branch without its bridge feedback (what `hybrid` ranks); the bridge's own part is measured in "
        "[bridge_feedback.md](bridge_feedback.md) and [part_rank_order.md](part_rank_order.md).",
        "",
        head,
        "|---|" + "---|" * (len(METRICS) + len(types)),
    ]
    for row, values in summary["rows"].items():
        cells = [f"{values[m]:.3f}" for m in METRICS]
        cells += [f"{summary['perfect_at_10_by_type'][row][t]:.3f}" for t in types]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
