"""Bridge feedback in `joint`'s news branch (retrieval/bridge.py) on the real MultiHop-RAG corpus: how often the
bridge entity is the answer of an inference question, and what the second ranking does to the first, by depth (top
chunks read for the bridge; 0 = off) and weight (of its signal in flat+'s picks). Both halves of the scored
questions are reported: the first half chose the defaults, the second half checks them.

The flat features and the five-stage graph retriever's chunk ranking are computed once per question (bench/news_tune
builds them) and cached in `--cache`. Run against a store holding the corpus (NEO4J_URI, CHROMA_PATH of
`graphwire ingest ../shared/data/multihop-rag/corpus.json --extractor offline`):

    python -m bench.bridge_feedback --sample 800 --cache $EVAL_WORK/bridge_features.pkl --out bench/bridge_feedback
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path
from typing import Any

from bench._results import command_line, machine, write_results
from bench.news_tune import build_cache
from graphwire.core.clients.graph import Graph
from graphwire.core.names import normalise_name
from graphwire.core.settings import Settings
from graphwire.eval.datasets import load_questions
from graphwire.eval.scorers import score_retrieval
from graphwire.eval.selection import select
from graphwire.retrieval.flat.plus import FlatPlusConfig
from graphwire.retrieval.joint import JointConfig, JointRetriever
from graphwire.retrieval.registry import RetrievalContext

METRICS = ("perfect_at_10", "perfect_at_4", "hits_at_4", "hits_at_10", "mrr_at_10")
GRID = [(0, 0.0)] + [(depth, weight) for depth in (5, 10, 20) for weight in (0.5, 1.0, 2.0)]
INFERENCE = "inference_query"


def rows_of(retriever: JointRetriever, args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.cache.exists():
        rows: list[dict[str, Any]] = pickle.loads(args.cache.read_bytes())
        return rows
    questions = [q for q in select(load_questions(args.questions), sample_size=args.sample) if q.gold_facts]
    rows = build_cache(retriever, questions)
    answers = {q.index: q.answer for q in questions}
    for row in rows:
        row["answer"] = answers[row["index"]]
    args.cache.write_bytes(pickle.dumps(rows))
    return rows


def is_answer(name: str, answer: str) -> bool:
    """The bridge names the answer: one contains the other, or they end in the same word ("Bankman-Fried")."""
    found, gold = normalise_name(name, drop_suffix=False), normalise_name(answer, drop_suffix=False)
    return bool(found and gold) and (found in gold or gold in found or found.split()[-1] == gold.split()[-1])


def evaluate(base: JointRetriever, rows: list[dict[str, Any]], depth: int, weight: float) -> dict[str, float]:
    retriever = JointRetriever(base.flat, base.ppr, base.graph, JointConfig(bridge_depth=depth))
    snapshot = retriever.flat.index.snapshot()
    alignment = retriever.align(snapshot, retriever.ppr.walk().snapshot)
    flat_config = FlatPlusConfig(bridge_weight=weight)
    sums = dict.fromkeys([*METRICS, "inference_perfect_at_10", "bridged", "bridge_is_answer"], 0.0)
    inference = 0
    for row in rows:
        features = row["features"]
        scores, bridge = retriever.guided_flat(
            features.analysis.question, features, row["graph_ids"], alignment, flat_config=flat_config
        )
        positions = (-scores).argsort(kind="stable")[:10]
        chunks = [snapshot.chunks[p] for p in positions]
        score = score_retrieval([c.text for c in chunks], [c.title for c in chunks], row["facts"], row["titles"])
        for metric in METRICS:
            sums[metric] += getattr(score, metric)
        sums["bridged"] += bridge is not None
        if row["type"] == INFERENCE:
            inference += 1
            sums["inference_perfect_at_10"] += score.perfect_at_10
            sums["bridge_is_answer"] += bridge is not None and is_answer(bridge.name, row["answer"])
    out = {m: sums[m] / len(rows) for m in (*METRICS, "bridged")}
    out["inference_perfect_at_10"] = sums["inference_perfect_at_10"] / max(inference, 1)
    out["bridge_is_answer"] = sums["bridge_is_answer"] / max(inference, 1)
    return out


def chosen(report: dict[str, Any]) -> dict[str, Any]:
    """The run the defaults follow: the best on the first half by Perfect@10, then Perfect@4, Hits@4, Hits@10, MRR."""
    runs = [r for r in report["runs"]["first"] if r["depth"] > 0]
    return max(runs, key=lambda r: tuple(round(r["result"][m], 6) for m in METRICS))


def _change(report: dict[str, Any], half: str, depth: int, weight: float) -> str:
    runs = {(r["depth"], r["weight"]): r["result"] for r in report["runs"][half]}
    off, on = runs[(0, 0.0)], runs[(depth, weight)]
    return ", ".join(f"{m} {off[m]:.3f} -> {on[m]:.3f}" for m in (*METRICS, "inference_perfect_at_10"))


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Bridge feedback in joint's news branch: by depth and weight, on both halves of the questions",
        "",
        f"Command: `{report['command']}` (the store of `graphwire ingest ../shared/data/multihop-rag/corpus.json "
        "--extractor offline`).",
        f"Machine: {report['machine']}.",
        "",
        f"Questions: the {report['questions']['first'] + report['questions']['second']} scored questions of the "
        "800-question sample (seed 0), in file order, split in halves. Every question is ranked the news way (flat+ "
        "guided by the graph retriever's chunks), as joint ranks the questions that name no title entity. "
        "`bridge = answer`: the share of inference questions whose bridge entity names the gold answer.",
        "",
    ]
    best = chosen(report)
    depth, weight = best["depth"], best["weight"]
    lines += [
        f"Chosen on the first half (best Perfect@10, then Perfect@4): depth {depth}, weight {weight} "
        "(`JointConfig.bridge_depth`, `FlatPlusConfig.bridge_weight`).",
        f"- first half: {_change(report, 'first', depth, weight)};",
        f"- second half, not seen by the choice: {_change(report, 'second', depth, weight)}.",
        "",
    ]
    for half in ("first", "second"):
        lines += [
            f"## {half.capitalize()} half ({report['questions'][half]} questions)",
            "",
            "| depth | weight | Perfect@10 | Perfect@4 | Hits@4 | Hits@10 | MRR@10 | inference Perfect@10 | bridged "
            "| bridge = answer |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for run in report["runs"][half]:
            r = run["result"]
            lines.append(
                f"| {run['depth']} | {run['weight']} | "
                + " | ".join(
                    f"{r[m]:.3f}" for m in (*METRICS, "inference_perfect_at_10", "bridged", "bridge_is_answer")
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, default=Path("../shared/data/multihop-rag/MultiHopRAG.json"))
    parser.add_argument("--sample", type=int, default=800)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    settings = Settings()
    graph = Graph.from_settings(settings)
    retriever = RetrievalContext(settings, graph=lambda: graph).retriever("joint")
    assert isinstance(retriever, JointRetriever)
    rows = sorted(rows_of(retriever, args), key=lambda r: r["index"])
    halves = {"first": rows[: len(rows) // 2], "second": rows[len(rows) // 2 :]}
    report: dict[str, Any] = {
        "command": command_line(),
        "machine": machine(),
        "questions": {half: len(part) for half, part in halves.items()},
        "runs": {
            half: [{"depth": d, "weight": w, "result": evaluate(retriever, part, d, w)} for d, w in GRID]
            for half, part in halves.items()
        },
    }
    text = markdown(report)
    print(text)
    if args.out:
        write_results(args.out, report, text)


if __name__ == "__main__":
    main()
