"""Ingest on Ray against one machine: the same documents ingested alone and with extraction and embedding as a Ray
job on 1 and 2 worker nodes (a local cluster of one-CPU nodes), then the one writer.

    NEO4J_URI=... NEO4J_PASSWORD=... python -m bench.ray_ingest --wipe --documents 40 --out bench/ray_ingest

Each configuration starts from an empty graph and empty stores (vectors on, sentence vectors as configured). Reported:
the job's time (`prepare`), the writer's time (`write`, reading both caches), the total, and whether the graph and the
vectors equal the single-machine ingest's. The cluster's start is timed apart (a standing cluster does not pay it).
"""

from __future__ import annotations

import argparse
import logging
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results
from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.eval.datasets import DEFAULT_CORPUS
from graphwire.ingest.distributed import cached_chunk_store, prepare_on_ray
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.service import ExtractorChoice, IngestRun, ingest_options


def stores(root: Path) -> Settings:
    return Settings(
        chroma_path=root / "chroma",
        chroma_collection="ray_bench",
        extraction_cache_path=root / "extractions.sqlite",
        vector_cache_path=root / "vectors.sqlite",
        ingest_state_path=root / "state",
    )


def counts(graph: Graph) -> dict[str, int]:
    found = {k: int(v) for k, v in graph.read("ingest/count_nodes")[0].items()}
    return found | {k: int(v or 0) for k, v in graph.read("graph/fingerprint")[0].items()}


def vectors(settings: Settings) -> dict[str, np.ndarray]:
    chunks, matrix = ChunkStore.from_settings(settings).get_all_with_vectors()
    return {c.id: np.asarray(v) for c, v in zip(chunks, matrix, strict=True)}


def alone(articles: list[Any], graph: Graph, root: Path) -> dict[str, Any]:
    settings = stores(root)
    options = ingest_options(settings, progress=False)
    started = time.perf_counter()
    report = IngestRun(articles, settings, options=options, extractor=ExtractorChoice.OFFLINE, n_process=1).run(
        graph, chunk_store=ChunkStore.from_settings(settings)
    )
    total = time.perf_counter() - started
    return {"config": "one machine, no Ray", "workers": 0, "prepare_s": None, "write_s": round(total, 1),
            "total_s": round(total, 1), "chunks": report.chunks_written, "counts": counts(graph),
            "settings": settings}  # fmt: skip


def on_ray(articles: list[Any], graph: Graph, root: Path, workers: int) -> dict[str, Any]:
    import ray
    from ray.cluster_utils import Cluster

    started = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(workers - 1):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level=logging.WARNING, log_to_driver=False)
    cluster_s = time.perf_counter() - started
    try:
        settings = stores(root)
        options = ingest_options(settings, progress=False)
        run = IngestRun(articles, settings, options=options, extractor=ExtractorChoice.OFFLINE, cache_offline=True)
        prepared = prepare_on_ray(run, partitions=4 * workers, progress=False)
        started = time.perf_counter()
        report = run.run(graph, chunk_store=cached_chunk_store(settings))
        write_s = time.perf_counter() - started
    finally:
        ray.shutdown()
        cluster.shutdown()
    return {"config": f"Ray, {workers} node(s) of 1 CPU", "workers": workers, "cluster_start_s": round(cluster_s, 1),
            "prepare_s": round(prepared.seconds, 1), "write_s": round(write_s, 1),
            "total_s": round(prepared.seconds + write_s, 1), "chunks": report.chunks_written,
            "tasks": prepared.partitions, "task_s_sum": round(sum(prepared.task_seconds), 1),
            "worker_processes": len(prepared.workers), "counts": counts(graph), "settings": settings}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--documents", type=int, default=40, help="the corpus's first N documents")
    parser.add_argument("--workers", default="1,2", help="Ray node counts to compare, comma-separated")
    parser.add_argument("--out", type=Path, default=Path("bench/ray_ingest"))
    add_wipe_flag(parser)
    args = parser.parse_args()
    require_wipe(parser, args)
    logging.disable(logging.WARNING)
    articles = load_articles(args.corpus).articles[: args.documents]
    settings = Settings()
    graph = Graph.from_settings(settings)
    tmp = Path(tempfile.mkdtemp(prefix="graphwire-ray-bench-"))
    rows = []
    try:
        for workers in [0, *(int(w) for w in args.workers.split(","))]:
            empty_graph(graph)
            apply_schema(graph)
            root = tmp / str(workers)
            row = alone(articles, graph, root) if workers == 0 else on_ray(articles, graph, root, workers)
            rows.append(row)
            print({k: v for k, v in row.items() if k != "settings"}, flush=True)
        base = vectors(rows[0]["settings"])
        for row in rows:
            got = vectors(row.pop("settings"))
            row["same_graph"] = row["counts"] == rows[0]["counts"]
            row["max_vector_diff"] = max(
                (float(np.abs(v - base[k]).max()) for k, v in got.items() if k in base), default=None
            )
            row["same_vector_ids"] = got.keys() == base.keys()
    finally:
        graph.close()
        shutil.rmtree(tmp, ignore_errors=True)
    results = {"command": command_line(), "machine": machine(), "documents": len(articles), "rows": rows}
    write_results(args.out, results, markdown(results))


def markdown(r: dict[str, Any]) -> str:
    rows = r["rows"]
    lines = [
        "# Ingest on Ray: extraction and embedding as a job, one writer",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']}. The first {r['documents']} documents of the corpus, offline extractor, vectors and "
        "sentence vectors on, each configuration from an empty graph and empty stores. Ray nodes are one-CPU nodes of "
        "a local cluster on this machine (`ray.cluster_utils.Cluster`).",
        "",
        "| configuration | cluster start s | prepare s (tasks) | write s | total s | chunks | same graph "
        "| same vector ids | max vector difference |",
        "|---|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for row in rows:
        prepare = f"{row['prepare_s']} ({row['tasks']})" if row["prepare_s"] is not None else "-"
        lines.append(
            f"| {row['config']} | {row.get('cluster_start_s', '-')} | {prepare} | {row['write_s']} | {row['total_s']} "
            f"| {row['chunks']} | {row['same_graph']} | {row['same_vector_ids']} | {row['max_vector_diff']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
