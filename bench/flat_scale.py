"""How the flat modes' in-memory index grows: build time, memory and query latency of `bm25`, `fused` and `flat_plus`
over 1,000 to 100,000 chunks.

The chunks are the synthetic news articles of bench/scaling.py (one chunk each, its five sentences), their chunk and
sentence vectors random unit vectors: what the index costs does not depend on the vectors' values, and embedding
100,000 chunks on this machine would take hours (bench/scaling.md writes real vectors for its first step only). The
questions are embedded by the real model, so each latency holds the question's embedding (constant) and the scoring
over N chunks (what grows).

    python -m bench.flat_scale --sizes 1000,10000,30000,100000 --out bench/flat_scale
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench._results import command_line, latency_stats, machine, write_results
from bench.scaling import Corpus
from graphwire.core.clients.embeddings import embedder_from_settings
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.flat.index import FlatIndex
from graphwire.retrieval.flat.lexical import BM25Retriever, FusedRetriever
from graphwire.retrieval.flat.plus import FlatPlusRetriever
from graphwire.schema.model import load_schema

DIMENSION = 384  # bge-small-en-v1.5
SENTENCES = 5  # each synthetic article's


class SyntheticStore:
    """What the flat index reads from a chunk store: N synthetic chunks, random chunk and sentence vectors."""

    def __init__(self, size: int, seed: int = 7) -> None:
        corpus = Corpus(size)
        self.chunks = []
        for i in range(size):
            article = corpus.article(i)
            prefix = f"[Source: {article.source} | Title: {article.title} | Published: {article.published_at}]"
            text = f"{prefix} {article.body}"
            self.chunks.append(
                Chunk(id=str(i), document_id=article.url or str(i), index=0, text=text, title=article.title,
                      source=article.source, published_at=article.published_at)
            )  # fmt: skip
        rng = np.random.default_rng(seed)
        self.vectors = unit(rng.standard_normal((size, DIMENSION), dtype=np.float32))
        self.sentences = unit(rng.standard_normal((size * SENTENCES, DIMENSION), dtype=np.float32))
        names = [random.Random(i).choice(corpus.companies) for i in range(20)]
        self.questions = [f"Who is the chief executive of the company that agreed to acquire {n}?" for n in names]

    def revision(self) -> str:
        return "synthetic"

    def get_all_with_vectors(self) -> tuple[list[Chunk], np.ndarray]:
        return self.chunks, self.vectors

    def sentence_vectors(self, positions: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        return np.repeat(np.arange(len(self.chunks), dtype=np.int64), SENTENCES), self.sentences


def unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def step(size: int, settings: Settings) -> dict[str, Any]:
    store = SyntheticStore(size)
    index = FlatIndex(store)  # type: ignore[arg-type]
    started = time.perf_counter()
    snapshot = index.snapshot()
    build_s = time.perf_counter() - started
    embedder = embedder_from_settings(settings)
    modes: dict[str, Retriever] = {
        "bm25": BM25Retriever(index),
        "fused": FusedRetriever(index, embedder),
        "flat_plus": FlatPlusRetriever(index, embedder, schema=load_schema(settings.schema_path)),
    }
    latency = {}
    for name, retriever in modes.items():
        for question in store.questions[:3]:
            retriever.retrieve(question, 10)  # warm-up
        times = []
        for question in store.questions:
            started = time.perf_counter()
            retriever.retrieve(question, 10)
            times.append((time.perf_counter() - started) * 1000)
        latency[name] = latency_stats(times)
    bm25 = snapshot.bm25.matrix
    memory = snapshot.vectors.nbytes + (snapshot.sentences.vectors.nbytes if snapshot.sentences else 0)
    memory += bm25.data.nbytes + bm25.indices.nbytes + bm25.indptr.nbytes
    return {"chunks": size, "build_s": round(build_s, 2), "arrays_mib": round(memory / 2**20, 1), "latency": latency}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,30000,100000", help="chunk counts, comma-separated")
    parser.add_argument("--out", type=Path, default=Path("bench/flat_scale"))
    args = parser.parse_args()
    settings = Settings()
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows.append(step(size, settings))
        print(rows[-1], flush=True)
    results = {"command": command_line(), "machine": machine(), "rows": rows,
               "load_average": [round(x, 2) for x in os.getloadavg()]}  # fmt: skip
    write_results(args.out, results, markdown(results))


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "# The flat modes' in-memory index, 1,000 to 100,000 chunks",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']}; load average {r['load_average']} (1, 5, 15 min) at the end. Synthetic chunks "
        "(bench/scaling.py's articles), random unit chunk and sentence vectors (384 dimensions, five sentences a "
        "chunk), 20 questions embedded by the real model; p50 / p95 ms per question, in process.",
        "",
        "| chunks | index build s | arrays MiB | bm25 p50 / p95 ms | fused p50 / p95 ms | flat_plus p50 / p95 ms |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        cells = [f"{row['latency'][m]['p50']} / {row['latency'][m]['p95']}" for m in ("bm25", "fused", "flat_plus")]
        lines.append(f"| {row['chunks']} | {row['build_s']} | {row['arrays_mib']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
