"""Offline embedders side by side: MiniLM-L6 (the default) against bge-small-en-v1.5, both int8 ONNX on onnxruntime.

For each dataset the corpus is loaded and chunked exactly as `graphwire ingest` does (ingest.loaders.load_articles,
ingest.chunker.chunk_article with CHUNK_SIZE/CHUNK_OVERLAP), written into an in-memory Chroma collection through the
project's own ChunkStore (so chunks are embedded as ingest embeds them), and searched with the project's own flat
retrievers (retrieval.flat: `vector` = the Chroma dense baseline, `fused` = RRF of exact dense and BM25, `bm25` as the
model-independent reference, `flat_plus` optionally). No Neo4j. Scores are by distinct document title: the retrieved
chunks are reduced to their titles in rank order, then Perfect@k = every gold title among the first k titles and
Recall@k = the share of gold titles among them.

    .venv/bin/python bench/embedders.py                       # writes bench/embedders.{md,json}
    .venv/bin/python bench/embedders.py --limit 50 --no-write # a quick look
    .venv/bin/python bench/embedders.py --render --notes reading.md  # rewrite the .md from the .json with a reading
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import chromadb  # noqa: E402
import numpy as np  # noqa: E402
from chromadb.config import Settings as ChromaSettings  # noqa: E402

from graphwire.core.clients.chunk_store import ChunkStore  # noqa: E402
from graphwire.core.clients.embeddings import OFFLINE_EMBEDDERS, OnnxEmbedder, Vectors  # noqa: E402
from graphwire.core.documents import Chunk  # noqa: E402
from graphwire.core.settings import OfflineEmbeddingModel, Settings  # noqa: E402
from graphwire.ingest.chunker import chunk_article  # noqa: E402
from graphwire.ingest.loaders import load_articles  # noqa: E402
from graphwire.retrieval.flat import build_flat_retrievers  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
WRITE_BATCH = 256  # chunks per ChunkStore.upsert call, as ingest writes them
THROUGHPUT_SAMPLE = 512  # chunks per dataset for the one-thread throughput (embedded twice per model)
POOL = 50  # chunks retrieved per question, reduced to distinct titles (bodies are short: ~1 chunk per title)


@dataclass(frozen=True)
class Dataset:
    name: str
    corpus: Path
    questions: Path
    metrics: tuple[tuple[str, int], ...]  # (perfect|recall, k) reported in the headline table


DATASETS = {
    "multihop": Dataset(
        "MultiHop-RAG",
        SHARED / "multihop-rag" / "corpus.facts.json",
        SHARED / "multihop-rag" / "MultiHopRAG.partial.json",
        (("perfect", 10), ("perfect", 4), ("recall", 10), ("recall", 4)),
    ),
    "hotpotqa": Dataset(
        "HotpotQA",
        SHARED / "hotpotqa" / "corpus.json",
        SHARED / "hotpotqa" / "questions.json",
        (("perfect", 8), ("recall", 2), ("recall", 5), ("perfect", 5)),
    ),
}
KS = (2, 4, 5, 8, 10)


@dataclass(frozen=True)
class Query:
    text: str
    gold: tuple[str, ...]
    qtype: str


def load_queries(path: Path) -> list[Query]:
    """MultiHop-RAG (`query`, `evidence_list[].title`; null queries left out) or HotpotQA (`query`, `gold_titles`)."""
    queries = []
    for record in json.loads(path.read_text(encoding="utf-8")):
        if "gold_titles" in record:
            queries.append(Query(record["query"], tuple(dict.fromkeys(record["gold_titles"])), record.get("type", "")))
            continue
        gold = tuple(dict.fromkeys(item["title"] for item in record.get("evidence_list", [])))
        if record.get("question_type") == "null_query" or not gold:
            continue
        queries.append(Query(record["query"], gold, record.get("question_type", "")))
    return queries


def load_chunks(path: Path, settings: Settings) -> tuple[int, list[Chunk]]:
    loaded = load_articles(path)
    if loaded.errors:
        raise SystemExit(f"{path}: {len(loaded.errors)} records failed to load, first: {loaded.errors[0]}")
    chunks = [
        chunk
        for article in loaded.articles
        for chunk in chunk_article(article, settings.chunk_size, settings.chunk_overlap)
    ]
    return len(loaded.articles), chunks


def machine() -> str:
    pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    return (
        f"{os.cpu_count()} cores, {pages * page_size / 2**30:.0f} GiB memory, {platform.machine()}, "
        f"Python {platform.python_version()}"
    )


class TimedEmbedder:
    """Delegates to an offline embedder; adds up the wall and CPU seconds spent on passages and on queries.

    Query vectors are cached by text, so the retrievers compared on one question share one query embedding.
    """

    def __init__(self, inner: OnnxEmbedder) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.model_id = inner.model_id
        self.passage_s = 0.0
        self.passage_cpu_s = 0.0
        self.passages = 0
        self.query_s = 0.0
        self.queries = 0
        self._query_cache: dict[str, Vectors] = {}

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        started, cpu = time.perf_counter(), time.process_time()
        out = self.inner.embed(texts)
        self.passage_s += time.perf_counter() - started
        self.passage_cpu_s += time.process_time() - cpu
        self.passages += len(texts)
        return out

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if t not in self._query_cache))
        if missing:
            started = time.perf_counter()
            self._query_cache.update(zip(missing, self.inner.embed_queries(missing), strict=True))
            self.query_s += time.perf_counter() - started
            self.queries += len(missing)
        return np.stack([self._query_cache[t] for t in texts])

    def embed_query(self, text: str) -> Vectors:
        return self.embed_queries([text])[0]


def distinct_titles(titles: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(titles))


def score(titles: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        found = sum(1 for title in gold if title in titles[:k])
        out[f"perfect@{k}"] = float(found == len(gold))
        out[f"recall@{k}"] = found / len(gold)
    return out


def mean(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.fmean(r[key] for r in rows) for key in rows[0]} if rows else {}


def single_thread_throughput(
    models: Sequence[OfflineEmbeddingModel], texts: Sequence[str], batch_size: int, rounds: int = 2
) -> dict[str, dict[str, float]]:
    """Chunks per CPU second of one onnxruntime thread (the calling thread, so other processes' load does not count
    as work): roughly what one idle core embeds. Models take turns per 256-chunk batch, `rounds` times over `texts`."""
    embedders = {m: OFFLINE_EMBEDDERS[m](batch_size=batch_size, threads=1) for m in models}
    cpu = dict.fromkeys(models, 0.0)
    wall = dict.fromkeys(models, 0.0)
    for embedder in embedders.values():
        embedder.embed(["warm-up: load the ONNX session before timing"])
    for _ in range(rounds):
        for start in range(0, len(texts), WRITE_BATCH):
            for model, embedder in embedders.items():
                t0, c0 = time.perf_counter(), time.thread_time()
                embedder.embed(texts[start : start + WRITE_BATCH])
                cpu[model] += time.thread_time() - c0
                wall[model] += time.perf_counter() - t0
    done = rounds * len(texts)
    return {
        m.value: {
            "chunks": done,
            "cpu_s": round(cpu[m], 2),
            "chunks_per_cpu_s": round(done / cpu[m], 1),
            "wall_s": round(wall[m], 2),
        }
        for m in models
    }


def run_dataset(
    key: str, models: Sequence[OfflineEmbeddingModel], systems: Sequence[str], limit: int | None, client: Any
) -> dict[str, Any]:
    dataset = DATASETS[key]
    settings = Settings()
    articles, chunks = load_chunks(dataset.corpus, settings)
    queries = load_queries(dataset.questions)[:limit] if limit else load_queries(dataset.questions)
    print(f"{dataset.name}: {articles} articles -> {len(chunks)} chunks, {len(queries)} questions", file=sys.stderr)
    result: dict[str, Any] = {
        "dataset": dataset.name,
        "corpus": str(dataset.corpus.relative_to(REPO.parent)),
        "questions_file": str(dataset.questions.relative_to(REPO.parent)),
        "articles": articles,
        "chunks": len(chunks),
        "questions": len(queries),
        "headline": [f"{kind}@{k}" for kind, k in dataset.metrics],
        "models": {},
    }
    embedders = {m: TimedEmbedder(OFFLINE_EMBEDDERS[m](batch_size=settings.embedding_batch_size)) for m in models}
    stores = {}
    for model, embedder in embedders.items():
        embedder.inner.embed(["warm-up: load the ONNX session before timing"])
        stores[model] = ChunkStore(client, f"bench-embedders-{key}-{model.value}-{uuid.uuid4().hex[:8]}", embedder)
    load_before = os.getloadavg()
    for start in range(0, len(chunks), WRITE_BATCH):  # the models take turns, so both see the same machine load
        for store in stores.values():
            store.upsert(chunks[start : start + WRITE_BATCH])
    load_after_embedding = os.getloadavg()
    sample = [chunk.text for chunk in chunks[:THROUGHPUT_SAMPLE]]
    result["single_thread"] = single_thread_throughput(models, sample, settings.embedding_batch_size)
    print(f"  one thread: {result['single_thread']}", file=sys.stderr)
    for model, embedder in embedders.items():
        store = stores[model]
        retrievers = build_flat_retrievers(store, settings, load_schema(settings.schema_path))
        by_system: dict[str, Any] = {}
        for name in systems:
            if name == "bm25" and model is not models[0]:
                continue  # the same for every model
            retriever = retrievers[name]
            rows, latencies = [], []
            for query in queries:
                t0 = time.perf_counter()
                found = retriever.retrieve(query.text, top_k=POOL)
                latencies.append((time.perf_counter() - t0) * 1000)
                rows.append(
                    {**score(distinct_titles([c.title for c in found.chunks]), query.gold), "type": query.qtype}
                )
            latencies.sort()
            metric_rows = [{k: v for k, v in r.items() if k != "type"} for r in rows]
            by_system[name] = {
                "all": mean(metric_rows),
                "by_type": {
                    t: mean([{k: v for k, v in r.items() if k != "type"} for r in rows if r["type"] == t])
                    for t in sorted({str(r["type"]) for r in rows})
                },
                "latency_ms_p50": latencies[len(latencies) // 2],
                "latency_ms_p95": latencies[int(len(latencies) * 0.95)],
            }
            print(f"  {model.value:9s} {name:9s} {by_system[name]['all']}", file=sys.stderr)
        result["models"][model.value] = {
            "model_id": embedder.model_id,
            "embed_s": round(embedder.passage_s, 2),
            "embed_cpu_s": round(embedder.passage_cpu_s, 2),
            "chunks_per_s": round(embedder.passages / embedder.passage_s, 1),
            "chunks_per_cpu_s": round(embedder.passages / embedder.passage_cpu_s, 1),
            "query_embed_ms_mean": round(embedder.query_s * 1000 / max(1, embedder.queries), 1),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after_embedding],
            "systems": by_system,
        }
        print(
            f"  {model.value}: {embedder.passages} chunks in {embedder.passage_s:.1f} s "
            f"({embedder.passages / embedder.passage_s:.1f} chunks/s)",
            file=sys.stderr,
        )
    return result


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Offline embedders: MiniLM-L6 vs bge-small-en-v1.5 (both int8 ONNX)",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average (1, 5, 15 min) at the start {report['load_average_start']}, "
        f"at the end {report['load_average_end']} (other sessions share the 2 cores). onnxruntime "
        f"{report['onnxruntime']}, default threads, EMBEDDING_BATCH_SIZE {report['batch_size']}.",
        "",
        "Method: corpus loaded and chunked as `graphwire ingest` does (ingest.loaders, ingest.chunker, "
        f"{report['chunk_size']} characters, {report['chunk_overlap']} overlap), embedded through ChunkStore into an "
        "in-memory Chroma collection, searched with retrieval.flat (`vector`: Chroma dense top-k; `fused`: RRF k=60 "
        f"of exact dense and BM25 k1={report['bm25_k1']} b={report['bm25_b']}; `bm25`: the same for both models). "
        f"Each question retrieves {POOL} chunks, reduced to distinct titles in rank order; Perfect@k = all gold titles "
        "in the first k titles, Recall@k = share of gold titles there. bge-small embeds queries with the instruction "
        "prefix, passages without; MiniLM embeds both alike. Chunks/s: time inside `embed` during the ChunkStore "
        f"upserts ({WRITE_BATCH} chunks per call, the two models taking turns per batch so both see the same load), "
        "after a warm-up call; wall-clock and process CPU time (onnxruntime's threads included). Query vectors are "
        "computed once per question and model and shared by the systems; p50/p95 are per-question retrieval "
        "latencies of the project's retrievers (the first system of a model pays the query embedding).",
        "",
    ]
    for result in report["datasets"]:
        heads = result["headline"]
        extra = [
            m for m in ("perfect@2", "perfect@5", "perfect@8", "recall@2", "recall@5", "recall@10") if m not in heads
        ]
        cols = heads + extra[:2]
        lines += [
            f"## {result['dataset']}",
            "",
            f"`{result['corpus']}`: {result['articles']} documents -> {result['chunks']} chunks; "
            f"{result['questions']} questions (`{result['questions_file']}`"
            + ("; null queries left out" if result["dataset"] == "MultiHop-RAG" else "")
            + ").",
            "",
            "| Model | System | "
            + " | ".join(c.replace("perfect", "Perfect").replace("recall", "Recall") for c in cols)
            + " | p50 ms | p95 ms |",
            "|---|---|" + "---|" * (len(cols) + 2),
        ]
        for model, entry in result["models"].items():
            for system, values in entry["systems"].items():
                label = "(any)" if system == "bm25" else model
                cells = " | ".join(f"{values['all'][c]:.3f}" for c in cols)
                p50, p95 = values["latency_ms_p50"], values["latency_ms_p95"]
                lines.append(f"| {label} | {system} | {cells} | {p50:.1f} | {p95:.1f} |")
        lines += [
            "",
            "| Model | Chunks | Embedding s (wall) | Chunks/s (wall) | CPU s | Chunks per CPU s | Query embed ms |",
            "|---|---|---|---|---|---|---|",
        ]
        for model, entry in result["models"].items():
            lines.append(
                f"| {model} | {result['chunks']} | {entry['embed_s']:.1f} | {entry['chunks_per_s']:.1f} | "
                f"{entry['embed_cpu_s']:.1f} | {entry['chunks_per_cpu_s']:.1f} | {entry['query_embed_ms_mean']:.1f} |"
            )
        lines += [
            "",
            f"One onnxruntime thread, CPU time of that thread only (the first {THROUGHPUT_SAMPLE} chunks, twice, "
            "models taking turns per batch): roughly what one idle core embeds, whatever else the machine runs.",
            "",
            "| Model | Chunks | CPU s | Chunks per CPU s | Wall s |",
            "|---|---|---|---|---|",
        ]
        for model, entry in result["single_thread"].items():
            lines.append(
                f"| {model} | {entry['chunks']} | {entry['cpu_s']:.1f} | {entry['chunks_per_cpu_s']:.1f} | "
                f"{entry['wall_s']:.1f} |"
            )
        first_entry = next(iter(result["models"].values()))
        lines += [
            "",
            f"Load average while the chunks were embedded (models taking turns per {WRITE_BATCH}-chunk batch): "
            f"{first_entry['load_average_before']} -> {first_entry['load_average_after']}.",
        ]
        lines.append("")
        types = sorted({t for e in result["models"].values() for s in e["systems"].values() for t in s["by_type"]})
        if len(types) > 1:
            first = heads[0]
            lines += [f"{first.replace('perfect', 'Perfect')} by question type:", ""]
            lines += ["| Model | System | " + " | ".join(types) + " |", "|---|---|" + "---|" * len(types)]
            for model, entry in result["models"].items():
                for system, values in entry["systems"].items():
                    label = "(any)" if system == "bm25" else model
                    cells = " | ".join(f"{values['by_type'].get(t, {}).get(first, float('nan')):.3f}" for t in types)
                    lines.append(f"| {label} | {system} | {cells} |")
            lines.append("")
    if report.get("notes"):
        lines += ["## Reading", "", report["notes"], ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--datasets", default="multihop,hotpotqa")
    parser.add_argument("--models", default="minilm,bge-small")
    parser.add_argument("--systems", default="vector,fused,bm25,flat_plus")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions of each dataset")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "embedders")
    parser.add_argument("--notes", type=Path, default=None, help="a markdown file appended as the reading")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--render", action="store_true", help="rewrite the .md from the .json (e.g. new --notes)")
    args = parser.parse_args(argv)
    if args.render:
        report = json.loads(args.out.with_suffix(".json").read_text(encoding="utf-8"))
        if args.notes:
            report["notes"] = args.notes.read_text(encoding="utf-8").strip()
            args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        args.out.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
        return

    import onnxruntime

    settings = Settings()
    models = [OfflineEmbeddingModel(m.strip()) for m in args.models.split(",") if m.strip()]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    client = chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False))
    load_start = [round(x, 2) for x in os.getloadavg()]
    started = time.perf_counter()
    results = [run_dataset(key.strip(), models, systems, args.limit, client) for key in args.datasets.split(",")]
    report = {
        "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
        "machine": machine(),
        "onnxruntime": onnxruntime.__version__,
        "batch_size": settings.embedding_batch_size,
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "bm25_k1": settings.bm25_k1,
        "bm25_b": settings.bm25_b,
        "load_average_start": load_start,
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "wall_s": round(time.perf_counter() - started, 1),
        "datasets": results,
        "notes": args.notes.read_text(encoding="utf-8").strip() if args.notes else "",
    }
    if args.no_write:
        print(markdown(report))
    else:
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        args.out.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
        print(f"wrote {args.out.with_suffix('.md')} and .json", file=sys.stderr)


if __name__ == "__main__":
    main()
