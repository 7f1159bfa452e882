"""Dump, per question, every signal the joint ranking fuses, so fusion rules can be compared offline in numpy.

For each question of a set (MultiHop-RAG or title-scored) it records, over the flat index's chunk positions: dense
similarity, BM25, the flat+ score, PPR from the question's entity seeds alone and PPR from its dense passage seeds
alone (PPR is linear in the restart vector, so blends of the two are sums), plus the chunk titles and texts and the
gold. `bench/joint_tune.py` reads the file.

    python -m bench.joint_components --questions ../shared/data/hotpotqa/questions.json --out hotpot.pkl
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.eval.datasets import load_questions
from graphwire.eval.selection import select
from graphwire.retrieval.fill import FilledRetriever
from graphwire.retrieval.flat.common import Guidance, GuidanceMode
from graphwire.retrieval.flat.plus import FlatPlusRetriever
from graphwire.retrieval.joint_fusion import linked_names
from graphwire.retrieval.ppr.retriever import PPRRetriever, seed_weights
from graphwire.retrieval.registry import RetrievalContext
from graphwire.retrieval.timing import StageTimer

PASSAGE_SEEDS = 20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    settings = Settings()
    graph = Graph.from_settings(settings)
    ctx = RetrievalContext(settings, graph=lambda: graph)
    flat_plus = ctx.retriever("flat_plus")
    ppr = ctx.retriever("ppr")
    assert isinstance(flat_plus, FlatPlusRetriever) and isinstance(ppr, PPRRetriever)
    snapshot = flat_plus.index.snapshot()
    walk = ppr.cache.walk(ppr.config.graph)
    snap = walk.snapshot
    engine = ppr.engine(walk)
    to_flat = np.array([snapshot.positions.get(cid, -1) for cid in snap.chunk_ids])
    flat_to_ppr = {snapshot.positions[cid]: i for i, cid in enumerate(snap.chunk_ids) if cid in snapshot.positions}

    def on_flat(scores: np.ndarray) -> np.ndarray:
        out = np.zeros(len(snapshot), dtype=np.float32)
        keep = to_flat >= 0
        out[to_flat[keep]] = scores[keep]
        return out

    graph_mode = ctx.retriever("graph")
    graph_retriever = graph_mode.primary if isinstance(graph_mode, FilledRetriever) else graph_mode
    questions = select(load_questions(args.questions), sample_size=args.sample)
    rows: list[dict[str, Any]] = []
    for q in tqdm(questions, desc="questions"):
        timer = StageTimer()
        features = flat_plus.features(q.query, snapshot, timer)
        _, fp_scores = flat_plus.rank(snapshot, features, 10)
        graph_ids = [c.chunk_id for c in graph_retriever.retrieve(q.query, top_k=10).chunks]
        graph_rank = np.zeros(len(snapshot), dtype=np.float32)
        for rank, cid in enumerate(dict.fromkeys(graph_ids), start=1):
            if cid in snapshot.positions:
                graph_rank[snapshot.positions[cid]] = 1.0 / rank
        guidance = Guidance(chunk_ids=graph_ids, mode=GuidanceMode.BOOST, weight=0.5) if graph_ids else None
        _, hybrid_scores = flat_plus.rank(snapshot, features, 10, guidance)
        matches = ppr.match(snap, q.query)
        seeds = seed_weights(snap, matches)
        titled = sum(1 for i in seeds if i in snap.titled)
        dense = features.dense
        top = np.argsort(-dense)[:PASSAGE_SEEDS]
        passage = {flat_to_ppr[int(p)]: float(dense[p]) for p in top if int(p) in flat_to_ppr and dense[p] > 0}
        ppr_e = on_flat(engine.run(seeds, {}).chunk_scores) if seeds else np.zeros(len(snapshot), np.float32)
        linked = seed_weights(snap, linked_names(matches, snapshot.word_case))
        ppr_l = on_flat(engine.run(linked, {}).chunk_scores) if linked else np.zeros(len(snapshot), np.float32)
        ppr_p = on_flat(engine.run({}, passage).chunk_scores) if passage else np.zeros(len(snapshot), np.float32)
        entity_seeds = {snap.entity_keys[i]: (w, int(snap.chunk_counts()[i])) for i, w in seeds.items()}
        rows.append(
            {
                "query": q.query,
                "type": q.question_type,
                "null": q.is_null,
                "gold_titles": q.gold_titles,
                "gold_facts": q.gold_facts,
                "dense": dense.astype(np.float32),
                "bm25": features.lexical.astype(np.float32),
                "flat_plus": fp_scores.astype(np.float32),
                "graph": graph_rank,
                "hybrid": hybrid_scores.astype(np.float32),
                "ppr_e": ppr_e,
                "ppr_p": ppr_p,
                "ppr_l": ppr_l,
                "titled": titled,
                "seeds": entity_seeds,
                "matches": [(m.mention, m.key, m.score) for m in matches],
            }
        )
    meta = {
        "titles": [c.title for c in snapshot.chunks],
        "texts": [c.text for c in snapshot.chunks],
        "doc_ids": [c.document_id for c in snapshot.chunks],
        "ids": [c.id for c in snapshot.chunks],
    }
    args.out.write_bytes(pickle.dumps({"meta": meta, "rows": rows}))
    graph.close()


if __name__ == "__main__":
    main()
