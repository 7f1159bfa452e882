"""Ingest throughput and retrieval latency of the zero-LLM graph on a 7,000-passage encyclopedia-style corpus.

The corpus is ../shared/data/hotpotqa/corpus.json repeated (`--copies`, 7 by default: 6,958 passages), each copy's
titles given a qualifier of its own ("Qvwm (copy 3)"), so every copy is a namesake page with its own title entity and
the dictionary, co-occurrence and synonym layers grow as on a real corpus of that size. It wipes the Neo4j at
NEO4J_URI, ingests with the offline extractor and no vectors (the end-to-end rate with the entity and structural
layers), then times `graph` and `ppr` over the HotpotQA questions (after one warm-up pass) and reports the PPR
snapshot's size and this process's peak RSS.

    NEO4J_URI=... NEO4J_PASSWORD=... python -m bench.encyclopedia_scale --wipe --out bench/encyclopedia_scale
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import statistics
import time
from pathlib import Path
from typing import Any

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import empty_graph
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.retrieval.registry import RetrievalContext
from graphwire.schema.model import load_schema

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "hotpotqa"


def corpus(copies: int) -> list[Article]:
    rows = json.loads((DATA / "corpus.json").read_text(encoding="utf-8"))
    out = []
    for copy in range(1, copies + 1):
        for row in rows:
            title = row["title"] if copy == 1 else f"{row['title']} (copy {copy})"
            out.append(Article(title=title, body=row["body"], category=row.get("category")))
    return out


def latencies(retrieve: Any, questions: list[str], top_k: int) -> dict[str, float]:
    for q in questions:  # warm-up: query plans, snapshot, caches
        retrieve(q, top_k)
    times = []
    for q in questions:
        started = time.perf_counter()
        retrieve(q, top_k)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
            "mean_ms": round(statistics.fmean(times), 1)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=7)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("bench/encyclopedia_scale"))
    add_wipe_flag(parser)
    args = parser.parse_args()
    require_wipe(parser, args)
    logging.disable(logging.WARNING)
    settings = Settings()
    graph = Graph.from_settings(settings)
    empty_graph(graph)
    articles = corpus(args.copies)
    extractor = OfflineExtractor(load_schema(), n_process=min(2, os.cpu_count() or 1))
    report = ingest_articles(articles, graph, extractor, options=IngestOptions(progress=False), schema=load_schema())
    extractor.close()
    ingest = {"documents": report.documents_written, "chunks": report.chunks_written,
              "seconds": round(report.elapsed_s, 1), "chunks_per_s": round(report.chunks_per_s, 1),
              "extract_s": round(report.extract_s, 1), "write_s": round(report.write_s, 1),
              "link_s": round(report.link_s, 1), "mentions_linked": report.mentions_linked,
              "graph": report.graph_counts}  # fmt: skip
    print(ingest, flush=True)
    questions = [q["query"] for q in json.loads((DATA / "questions.json").read_text(encoding="utf-8"))]
    ctx = RetrievalContext(settings=settings, graph=lambda: graph)
    modes = {}
    for mode in ("ppr", "graph"):
        modes[mode] = latencies(ctx.retriever(mode).retrieve, questions, args.top_k)
        print(mode, modes[mode], flush=True)
    snap = ctx.services().snapshots.snapshot()
    results = {
        "command": command_line(), "machine": machine(), "load": os.getloadavg()[0], "ingest": ingest,
        "retrieval": modes, "questions": len(questions),
        "snapshot": {"entities": snap.n_entities, "chunks": snap.n_chunks, "relations": snap.n_relations,
                     "cooccurrence_pairs": int(snap.cooccurrence.nnz) if snap.cooccurrence is not None else 0,
                     "mib": round(snap.memory_bytes() / 2**20, 1)},
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }  # fmt: skip
    write_results(args.out, results, markdown(results))


def markdown(r: dict[str, Any]) -> str:
    i, s = r["ingest"], r["snapshot"]
    lines = [
        "# The zero-LLM graph at 7,000 passages",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']}; 1-minute load average at the end {r['load']:.1f}.",
        "",
        f"Ingest (offline extractor, no vectors, title entities, dictionary linking): {i['documents']} documents, "
        f"{i['chunks']} chunks in {i['seconds']} s = **{i['chunks_per_s']} chunks/s** end to end (extract "
        f"{i['extract_s']} s, write {i['write_s']} s, linking {i['link_s']} s, "
        f"{i['mentions_linked']} linked mentions).",
        "",
        f"PPR snapshot: {s['entities']} entities, {s['chunks']} chunks, {s['relations']} typed relationships, "
        f"{s['cooccurrence_pairs']} co-occurring pairs, {s['mib']} MiB. "
        f"Peak RSS of this process: {r['peak_rss_mib']} MiB.",
        "",
        f"Retrieval over the {r['questions']} HotpotQA questions, top_k 10, after a warm-up pass:",
        "",
        "| mode | p50 ms | p95 ms | mean ms |",
        "|---|---|---|---|",
    ]
    lines += [f"| {m} | {v['p50_ms']} | {v['p95_ms']} | {v['mean_ms']} |" for m, v in r["retrieval"].items()]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
