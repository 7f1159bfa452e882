"""Grid search of the flat+ weights on the FIRST HALF of the scored MultiHop-RAG questions only.

Features (dense and BM25 scores for the question and each outlet clause) are computed once per question; every
configuration then re-ranks from them. The chosen weights go into FlatPlusConfig's defaults by hand.

    .venv/bin/python bench/flat_tune.py [--limit N] [--grid small|full]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from flat_retrieval import DEFAULT_CORPUS, DEFAULT_QUESTIONS, corpus_chunks, open_store  # noqa: E402
from tqdm import tqdm  # noqa: E402

from graphwire.core.settings import Settings  # noqa: E402
from graphwire.eval.datasets import load_questions  # noqa: E402
from graphwire.eval.scorers import score_retrieval  # noqa: E402
from graphwire.retrieval.flat import FlatIndex, FlatPlusConfig, FlatPlusRetriever  # noqa: E402
from graphwire.retrieval.timing import StageTimer  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402

GRIDS: dict[str, dict[str, list[float]]] = {
    "small": {
        "named_boost": [0.0, 0.01, 0.02],
        "unlabelled_boost": [0.0, 0.005, 0.01],
        "date_boost": [0.0, 0.01],
        "clause_weight": [0.5, 1.0],
        "pick_date_boost": [0.02],
        "max_picks": [0, 4],
    },
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--grid", default="small")
    parser.add_argument("--set", action="append", default=[], help="override a grid axis: name=v1,v2")
    args = parser.parse_args()
    store = open_store(corpus_chunks(DEFAULT_CORPUS, Settings()), REPO / ".graphwire" / "bench" / "flat-chroma")
    questions = [q for q in load_questions(DEFAULT_QUESTIONS).questions if not q.is_null]
    half = questions[len(questions) // 2].index
    tuning = [q for q in questions if q.index < half][: args.limit]
    retriever = FlatPlusRetriever(FlatIndex(store), store.embedder, schema=load_schema())
    snapshot = retriever.index.snapshot()
    features = [retriever.features(q.query, snapshot, StageTimer()) for q in tqdm(tuning, desc="features")]
    grid: dict[str, list[float]] = dict(GRIDS[args.grid])
    for override in args.set:
        name, values = override.split("=")
        grid[name] = [type(getattr(FlatPlusConfig(), name))(v) for v in values.split(",")]
    results = []
    for values in tqdm(list(itertools.product(*grid.values())), desc="configs"):
        config = FlatPlusConfig.model_validate(dict(zip(grid, values, strict=True)))
        scores = []
        for question, feature in zip(tuning, features, strict=True):
            positions, _ = retriever.rank(snapshot, feature, 10, None, config)
            chunks = [snapshot.chunks[p] for p in positions]
            scores.append(
                score_retrieval(
                    [c.text for c in chunks], [c.title for c in chunks], question.gold_facts, question.gold_titles
                )
            )
        p10 = statistics.fmean(s.perfect_at_10 for s in scores)
        p4 = statistics.fmean(s.perfect_at_4 for s in scores)
        map10 = statistics.fmean(s.map_at_10 for s in scores)
        results.append((p10 + p4 + map10, p10, p4, map10, config))
    for _total, p10, p4, map10, config in sorted(results, key=lambda r: -r[0])[:15]:
        print(f"P@10 {p10:.3f} P@4 {p4:.3f} MAP {map10:.3f} | {config.model_dump()}")


if __name__ == "__main__":
    main()
