"""Coordinate search of the news ranking's weights (flat+ and the graph guidance of `joint`) on the real MultiHop-RAG
corpus: tuned on the first half of the scored questions, reported on the second half, which the search never sees.

The flat features (question, outlet clauses and claim segments: dense and BM25 scores) and the five-stage graph
retriever's chunk ranking are computed once per question and cached in `--cache`; each configuration then re-ranks
from them in numpy. Run against a store holding the corpus (NEO4J_URI, CHROMA_PATH of `graphwire ingest`):

    python -m bench.news_tune --sample 800 --cache news_features.pkl --out bench/news_tune   # bench/news_tune.md
"""

from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench._results import command_line, machine
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.eval.datasets import load_questions
from graphwire.eval.scorers import score_retrieval
from graphwire.eval.selection import select
from graphwire.retrieval.flat.plus import FlatPlusConfig
from graphwire.retrieval.hybrid import HybridConfig
from graphwire.retrieval.joint import JointRetriever
from graphwire.retrieval.registry import RetrievalContext
from graphwire.retrieval.timing import StageTimer

MAX_DEPTH = 30
AXES: dict[str, list[Any]] = {
    "named_boost": [0.0, 0.004, 0.0075, 0.015, 0.03],
    "unlabelled_boost": [0.0, 0.005, 0.01],
    "date_boost": [0.0, 0.005, 0.01, 0.02],
    "clause_weight": [1.0, 2.0, 3.0],
    "pick_date_boost": [0.0, 0.02, 0.04],
    "max_picks": [0, 2, 4, 6],
    "claim_picks": [0, 2, 3, 4],
    "claim_weight": [1.0, 2.0, 3.0],
    "rrf_k": [30, 50, 60, 80],
    "guidance_weight": [0.25, 0.5, 0.75, 1.0, 1.5],
    "graph_depth": [5, 10, 20, 30],
}
GUIDANCE_AXES = ("guidance_weight", "graph_depth")
METRICS = ("perfect_at_10", "perfect_at_4", "hits_at_4", "hits_at_10", "mrr_at_10")


def build_cache(retriever: JointRetriever, questions: list[Any]) -> list[dict[str, Any]]:
    snapshot = retriever.flat.index.snapshot()
    rows = []
    for q in tqdm(questions, desc="features"):
        features = retriever.flat.features(q.query, snapshot, StageTimer())
        graph_ids = [c.chunk_id for c in retriever.graph.retrieve(q.query, MAX_DEPTH).chunks]
        rows.append({"index": q.index, "type": q.question_type, "facts": q.gold_facts, "titles": q.gold_titles,
                     "features": features, "graph_ids": graph_ids})  # fmt: skip
    return rows


def evaluate(retriever: JointRetriever, rows: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, float]:
    snapshot = retriever.flat.index.snapshot()
    flat = FlatPlusConfig(**{k: v for k, v in params.items() if k not in GUIDANCE_AXES})
    guide = HybridConfig(**{k: v for k, v in params.items() if k in GUIDANCE_AXES})
    sums = dict.fromkeys(METRICS, 0.0)
    for row in rows:
        guidance = guide.guidance(row["graph_ids"])
        positions, _ = retriever.flat.rank(snapshot, row["features"], 10, guidance, flat)
        chunks = [snapshot.chunks[p] for p in positions]
        score = score_retrieval([c.text for c in chunks], [c.title for c in chunks], row["facts"], row["titles"])
        for metric in METRICS:
            sums[metric] += getattr(score, metric)
    return {metric: total / len(rows) for metric, total in sums.items()}


def key(result: dict[str, float]) -> tuple[float, ...]:
    return tuple(round(result[m], 6) for m in METRICS)


def search(retriever: JointRetriever, rows: list[dict[str, Any]], start: dict[str, Any], rounds: int) -> dict[str, Any]:
    best, best_result = dict(start), evaluate(retriever, rows, start)
    for _ in range(rounds):
        moved = False
        for axis, values in AXES.items():
            for value in values:
                if value == best[axis]:
                    continue
                trial = {**best, axis: value}
                result = evaluate(retriever, rows, trial)
                if key(result) > key(best_result):
                    best, best_result, moved = trial, result, True
                    print(f"  {axis}={value}: " + " ".join(f"{m} {result[m]:.3f}" for m in METRICS), flush=True)
        if not moved:
            break
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, default=Path("../shared/data/multihop-rag/MultiHopRAG.json"))
    parser.add_argument("--sample", type=int, default=800)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    settings = Settings()
    graph = Graph.from_settings(settings)
    ctx = RetrievalContext(settings, graph=lambda: graph)
    retriever = ctx.retriever("joint")
    assert isinstance(retriever, JointRetriever)
    if args.cache.exists():
        rows = pickle.loads(args.cache.read_bytes())
    else:
        questions = [q for q in select(load_questions(args.questions), sample_size=args.sample) if q.gold_facts]
        rows = build_cache(retriever, questions)
        args.cache.write_bytes(pickle.dumps(rows))
    rows.sort(key=lambda r: r["index"])
    tune, held = rows[: len(rows) // 2], rows[len(rows) // 2 :]
    defaults = {**FlatPlusConfig().model_dump(), **HybridConfig().model_dump(include=set(GUIDANCE_AXES))}
    chosen = search(retriever, tune, defaults, args.rounds)
    report = {
        "command": command_line(),
        "machine": machine(),
        "questions": {"tune": len(tune), "held_out": len(held)},
        "defaults": defaults,
        "chosen": chosen,
        "tune": {"defaults": evaluate(retriever, tune, defaults), "chosen": evaluate(retriever, tune, chosen)},
        "held_out": {"defaults": evaluate(retriever, held, defaults), "chosen": evaluate(retriever, held, chosen)},
    }
    print(json.dumps(report, indent=1, default=str))
    if args.out:
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
