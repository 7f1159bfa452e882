"""Tune mode=hybrid's guidance on the FIRST half of the scored MultiHop-RAG questions, report both halves.

    NEO4J_URI=... NEO4J_HOME=... CHROMA_PATH=... .venv/bin/python bench/hybrid_tune.py [--limit N]

Needs a graph and chunk store built from ../shared/data/multihop-rag/corpus.facts.json (bench/eval_offline.sh builds
one). Writes bench/hybrid_tune.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from tqdm import tqdm

from graphwire.core.clients.chroma import open_client
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import get_settings
from graphwire.eval.datasets import load_questions
from graphwire.eval.scorers import RetrievalScore, score_retrieval
from graphwire.retrieval.fill import graph_mode
from graphwire.retrieval.flat.common import Guidance, GuidanceMode, ranked_chunks
from graphwire.retrieval.flat.modes import flat_plus_mode
from graphwire.retrieval.flat.plus import FlatPlusRetriever
from graphwire.retrieval.hybrid import HybridConfig
from graphwire.retrieval.models import RankedChunk
from graphwire.retrieval.registry import RetrievalContext
from graphwire.retrieval.timing import StageTimer

QUESTIONS = Path(__file__).resolve().parents[1].parent / "shared/data/multihop-rag/MultiHopRAG.partial.json"
GRID = [
    HybridConfig(guidance_mode=GuidanceMode.BOOST, guidance_weight=w, graph_depth=d)
    for w in (0.5, 1.0, 2.0, 4.0)
    for d in (10, 30)
] + [HybridConfig(guidance_mode=GuidanceMode.RESTRICT, graph_depth=30)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("hybrid_tune.md"))
    args = parser.parse_args()
    settings = get_settings()
    graph = Graph.from_settings(settings)
    ctx = RetrievalContext(settings, graph=lambda: graph, chroma=lambda: open_client(settings))
    flat = flat_plus_mode(ctx)
    assert isinstance(flat, FlatPlusRetriever)
    graph_retriever = graph_mode(ctx)
    questions = [q for q in load_questions(QUESTIONS).questions if not q.is_null][: args.limit]
    half = len(questions) // 2
    # The graph side does not depend on the config: retrieve once per question and replay it.
    cached = {}
    for q in tqdm(questions, desc="graph"):
        cached[q.query] = graph_retriever.retrieve(q.query, top_k=max(c.graph_depth for c in GRID))

    # Likewise the flat features (question and clause embeddings, BM25 scores): computed once, ranked per config.
    snapshot = flat.index.snapshot()
    features = {q.query: flat.features(q.query, snapshot, StageTimer()) for q in tqdm(questions, desc="flat features")}

    def ranked(question: str, guidance: Guidance | None) -> list[RankedChunk]:
        positions, scores = flat.rank(snapshot, features[question], 10, guidance)
        return ranked_chunks(snapshot, positions, scores)

    def graph_guidance(question: str, config: HybridConfig) -> Guidance | None:
        return config.guidance([c.chunk_id for c in cached[question].chunks])

    def guided(question: str, config: HybridConfig) -> list[RankedChunk]:
        return ranked(question, graph_guidance(question, config))

    systems: dict[str, Callable[[str], list[RankedChunk]]] = {
        "flat_plus": lambda question: ranked(question, None),
        "graph": lambda question: cached[question].chunks[:10],
    }
    for config in GRID:
        label = f"hybrid {config.guidance_mode.value} w={config.guidance_weight} depth={config.graph_depth}"
        systems[label] = partial(guided, config=config)
    rows = []
    for label, system in systems.items():
        scores = []
        started = time.perf_counter()
        for q in questions:
            chunks = system(q.query)
            scores.append(
                score_retrieval([c.text for c in chunks], [c.title for c in chunks], q.gold_facts, q.gold_titles)
            )
        elapsed = (time.perf_counter() - started) / len(questions) * 1000
        first, second = scores[:half], scores[half:]
        rows.append((label, _m(first), _m(second), _m(scores), elapsed))
    lines = [
        "# mode=hybrid tuning (first half tunes, second half checks)",
        "",
        f"Command: `{' '.join(['.venv/bin/python', *sys.argv])}`; {len(questions)} scored questions "
        f"(halves of {half} / {len(questions) - half}), graph and chunk store built offline from corpus.facts.json.",
        "",
        "| system | P@10 1st | P@4 1st | MAP@10 1st | P@10 2nd | P@4 2nd | MAP@10 2nd "
        "| P@10 all | P@4 all | MAP@10 all "
        "| ms/q |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, a, b, c, ms in rows:
        lines.append(
            f"| {label} | {a[0]:.3f} | {a[1]:.3f} | {a[2]:.3f} | {b[0]:.3f} | {b[1]:.3f} | {b[2]:.3f} | {c[0]:.3f} "
            f"| {c[1]:.3f} | {c[2]:.3f} | {ms:.1f} |"
        )
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    graph.close()


def _m(scores: list[RetrievalScore]) -> tuple[float, float, float]:
    return (
        statistics.fmean(s.perfect_at_10 for s in scores),
        statistics.fmean(s.perfect_at_4 for s in scores),
        statistics.fmean(s.map_at_10 for s in scores),
    )


if __name__ == "__main__":
    main()
