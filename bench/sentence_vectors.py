"""What sentence vectors cost the flat index: snapshot build time, memory, and dense scoring per question.

Reads the configured chunk store (CHROMA_PATH, CHROMA_COLLECTION) twice, without and with its sentence vectors, and
times `IndexSnapshot.dense_scores_many` for one query vector (vector-like modes) and four (flat+ embeds a question with
its clauses and claims), with each query's sentence pool as configured and with every sentence scored.

    python -m bench.sentence_vectors --out bench/sentence_vectors_cost_multihop-rag.md
"""

from __future__ import annotations

import dataclasses
import os
import platform
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.settings import get_settings
from graphwire.retrieval.flat.index import IndexSnapshot, build_snapshot

REPEATS = 50


def _timings(snapshot: IndexSnapshot, vectors: int) -> tuple[float, float]:
    rng = np.random.default_rng(vectors)
    queries = rng.standard_normal((vectors, snapshot.vectors.shape[1])).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    snapshot.dense_scores_many(queries)
    spent = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        snapshot.dense_scores_many(queries)
        spent.append((time.perf_counter() - started) * 1000)
    return float(np.median(spent)), float(np.percentile(spent, 95))


def main(out: Annotated[Path, typer.Option(help="markdown file to write")]) -> None:
    settings = get_settings()
    rows = []
    for sentences in (False, True):
        store = ChunkStore.from_settings(settings.model_copy(update={"sentence_vectors": sentences}))
        started = time.perf_counter()
        snapshot = build_snapshot(store, store.revision())
        built_s = time.perf_counter() - started
        variants = [("chunk vectors only", snapshot)]
        if snapshot.sentences is not None:
            pool = snapshot.sentences.pool
            every = dataclasses.replace(snapshot.sentences, pool=len(snapshot.chunks))
            variants = [
                (f"with sentences, pool {pool}", snapshot),
                ("with sentences, every chunk's", dataclasses.replace(snapshot, sentences=every)),
            ]
        for label, variant in variants:
            sentence_mb = variant.sentences.vectors.nbytes / 2**20 if variant.sentences is not None else 0.0
            one, four = _timings(variant, 1), _timings(variant, 4)
            rows.append(
                f"| {label} | {len(variant.chunks):,} | "
                f"{0 if variant.sentences is None else len(variant.sentences.owners):,} | {built_s:.1f} | "
                f"{variant.vectors.nbytes / 2**20:.0f} + {sentence_mb:.0f} | {one[0]:.1f} / {one[1]:.1f} | "
                f"{four[0]:.1f} / {four[1]:.1f} |"
            )
    load = os.getloadavg()[0]
    text = "\n".join(
        [
            "# Sentence vectors: what the flat index pays for them",
            "",
            "```",
            f"python -m bench.sentence_vectors --out {out}",
            "```",
            "",
            f"Store: `{settings.chroma_collection}`; machine: {os.cpu_count()} CPU cores, {platform.machine()}, "
            f"load average {load:.1f} at the end; scoring runs on one thread (`single_threaded`).",
            "",
            "| index | chunks | sentences | snapshot build s | matrices MiB (chunks + sentences) "
            "| 1 query vector p50 / p95 ms | 4 query vectors p50 / p95 ms |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    typer.run(main)
