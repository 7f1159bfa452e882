"""Flat retrieval on the shared MultiHop-RAG corpus: dense (Chroma), BM25, RRF fusion and the flat+ stack.

Chunks the corpus exactly as ingestion does (ingest.chunker, CHUNK_SIZE/CHUNK_OVERLAP), embeds them into a Chroma
collection under .graphwire/bench/ (reused while the corpus and chunking are unchanged), runs every system on the
scored (non-null) questions and scores them with eval.scorers (the official MultiHop-RAG metrics plus Perfect@k).
Weights were tuned on the first half of the scored questions only; both halves are reported.

    .venv/bin/python bench/flat_retrieval.py                      # writes bench/flat_retrieval.{md,json}
    .venv/bin/python bench/flat_retrieval.py --systems bm25,fused --no-write --dump /tmp/ranks.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tqdm import tqdm  # noqa: E402

from bench._results import write_results  # noqa: E402
from graphwire.core.clients.chunk_store import ChunkStore  # noqa: E402
from graphwire.core.documents import Article, Chunk  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.eval.datasets import DEFAULT_CORPUS, DEFAULT_QUESTIONS, load_corpus, load_questions  # noqa: E402
from graphwire.eval.questions import Question  # noqa: E402
from graphwire.eval.scorers import score_retrieval  # noqa: E402
from graphwire.ingest.chunker import chunk_article  # noqa: E402
from graphwire.ingest.loaders import parse_published  # noqa: E402
from graphwire.retrieval.base import Retriever  # noqa: E402
from graphwire.retrieval.flat import build_flat_retrievers  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402

METRICS = ("perfect_at_10", "perfect_at_4", "map_at_10", "mrr_at_10", "hits_at_10", "hits_at_4")
LABELS = {
    "perfect_at_10": "Perfect@10",
    "perfect_at_4": "Perfect@4",
    "map_at_10": "MAP@10",
    "mrr_at_10": "MRR@10",
    "hits_at_10": "Hits@10",
    "hits_at_4": "Hits@4",
}
BAR = {  # retrieval-findings.md, the calibration to reproduce or beat
    "vector": (0.600, 0.356, 0.467, 0.810),
    "bm25": (0.682, 0.465, 0.521, 0.871),
    "fused": (0.731, 0.459, 0.521, 0.866),
    "flat_plus": (0.792, 0.528, 0.554, 0.898),
}


def corpus_chunks(corpus_path: Path, settings: Settings) -> list[Chunk]:
    chunks: list[Chunk] = []
    for record in load_corpus(corpus_path):
        article = Article(
            title=record.title,
            body=record.body,
            source=record.source,
            published_at=parse_published(record.published_at),
            url=record.url,
        )
        chunks.extend(chunk_article(article, settings.chunk_size, settings.chunk_overlap))
    return chunks


def open_store(chunks: Sequence[Chunk], folder: Path) -> ChunkStore:
    """A Chroma collection named after the chunk ids, so a changed corpus or chunking gets a fresh one."""
    digest = hashlib.sha256("|".join(sorted(c.id for c in chunks)).encode()).hexdigest()[:12]
    settings = Settings(chroma_path=folder, chroma_collection=f"bench-flat-{digest}")
    store = ChunkStore.from_settings(settings)
    if store.count() != len(chunks):
        started = time.perf_counter()
        store.upsert(list(chunks))
        print(f"embedded {len(chunks)} chunks in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return store


def run_system(retriever: Retriever, questions: Sequence[Question], top_k: int) -> list[dict[str, Any]]:
    rows = []
    for question in tqdm(questions, desc=retriever.name, unit="q", leave=False):
        started = time.perf_counter()
        result = retriever.retrieve(question.query, top_k=top_k)
        elapsed_ms = (time.perf_counter() - started) * 1000
        score = score_retrieval(
            [c.text for c in result.chunks], [c.title for c in result.chunks], question.gold_facts, question.gold_titles
        )
        rows.append(
            {
                "index": question.index,
                "type": question.question_type,
                "ms": elapsed_ms,
                "ranks": score.gold_found_at,
                **{m: getattr(score, m) for m in METRICS},
            }
        )
    return rows


def mean_row(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    return {m: statistics.fmean(r[m] for r in rows) for m in METRICS} if rows else {}


def summarise(rows: Sequence[dict[str, Any]], half: int) -> dict[str, Any]:
    first = [r for r in rows if r["index"] < half]
    second = [r for r in rows if r["index"] >= half]
    types = sorted({r["type"] for r in rows})
    latencies = sorted(r["ms"] for r in rows)
    return {
        "all": mean_row(rows),
        "first_half": mean_row(first),
        "second_half": mean_row(second),
        "by_type": {t: mean_row([r for r in rows if r["type"] == t]) for t in types},
        "count": len(rows),
        "latency_ms": {
            "p50": latencies[len(latencies) // 2],
            "p95": latencies[int(len(latencies) * 0.95)],
        },
    }


def table(title: str, rows: dict[str, dict[str, float]]) -> list[str]:
    lines = [f"### {title}", "", "| System | " + " | ".join(LABELS[m] for m in METRICS) + " |"]
    lines.append("|---|" + "---|" * len(METRICS))
    for name, values in rows.items():
        if values:
            lines.append(f"| {name} | " + " | ".join(f"{values[m]:.3f}" for m in METRICS) + " |")
    return [*lines, ""]


def markdown(summary: dict[str, Any], command: str, meta: dict[str, Any]) -> str:
    systems = summary["systems"]
    lines = [
        "# Flat retrieval on the shared MultiHop-RAG corpus",
        "",
        f"Command: `{command}`",
        "",
        f"Corpus: {meta['articles']} articles -> {meta['chunks']} chunks ({meta['chunk_size']} characters, "
        f"{meta['chunk_overlap']} overlap, ingest.chunker); {meta['scored']} scored (non-null) questions of "
        f"{meta['questions']}; top-k {meta['top_k']}. Scorer: eval.scorers (official MultiHop-RAG metrics, Perfect@k). "
        f"Tuning used the first half only (question index < {meta['half']}).",
        "",
        *table("All scored questions", {n: s["all"] for n, s in systems.items()}),
        *table(f"First half (index < {meta['half']}, tuning)", {n: s["first_half"] for n, s in systems.items()}),
        *table(f"Second half (index >= {meta['half']}, held out)", {n: s["second_half"] for n, s in systems.items()}),
    ]
    for qtype in sorted({t for s in systems.values() for t in s["by_type"]}):
        lines += table(f"{qtype}", {n: s["by_type"][qtype] for n, s in systems.items() if qtype in s["by_type"]})
    lines += ["### Against the published calibration (retrieval-findings.md)", ""]
    lines += ["| System | Perfect@10 | Perfect@4 | MAP@10 | MRR@10 |", "|---|---|---|---|---|"]
    for name, values in systems.items():
        if name in BAR:
            measured = values["all"]
            cells = [
                f"{measured[m]:.3f} (bar {bar:.3f})"
                for m, bar in zip(("perfect_at_10", "perfect_at_4", "map_at_10", "mrr_at_10"), BAR[name], strict=True)
            ]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "### Latency per question (ms, this machine, 2 shared cores)", "", "| System | p50 | p95 |"]
    lines.append("|---|---|---|")
    for name, values in systems.items():
        lines.append(f"| {name} | {values['latency_ms']['p50']:.1f} | {values['latency_ms']['p95']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--systems", default="vector,bm25,fused,flat_plus")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--limit", type=int, default=None, help="only the first N scored questions")
    parser.add_argument("--half", choices=["all", "first", "second"], default="all")
    parser.add_argument("--chroma-path", type=Path, default=REPO / ".graphwire" / "bench" / "flat-chroma")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "flat_retrieval")
    parser.add_argument("--no-write", action="store_true", help="print the summary instead of writing md/json")
    parser.add_argument("--dump", type=Path, default=None, help="write per-question ranks here")
    args = parser.parse_args(argv)

    settings = Settings()
    chunks = corpus_chunks(args.corpus, settings)
    store = open_store(chunks, args.chroma_path)
    question_set = load_questions(args.questions)
    scored = [q for q in question_set.questions if not q.is_null]
    half = scored[len(scored) // 2].index
    if args.half != "all":
        scored = [q for q in scored if (q.index < half) == (args.half == "first")]
    scored = scored[: args.limit] if args.limit else scored
    retrievers = build_flat_retrievers(store, Settings(), load_schema())
    wanted = [name.strip() for name in args.systems.split(",") if name.strip()]
    results: dict[str, list[dict[str, Any]]] = {}
    for name in wanted:
        results[name] = run_system(retrievers[name], scored, args.top_k)
        if args.dump:  # written after each system, so a long run that is stopped keeps what it measured
            args.dump.write_text(json.dumps(results))
    summary = {"systems": {name: summarise(rows, half) for name, rows in results.items()}}
    meta = {
        "articles": len({c.document_id for c in chunks}),
        "chunks": len(chunks),
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "questions": len(question_set),
        "scored": len(scored),
        "top_k": args.top_k,
        "half": half,
    }
    command = ".venv/bin/python " + " ".join(shlex.quote(a) for a in ["bench/flat_retrieval.py", *sys.argv[1:]])
    text = markdown(summary, command, meta)
    if args.no_write:
        print(text)
        return
    write_results(args.out, {"command": command, "meta": meta, **summary}, text)
    print(text)


if __name__ == "__main__":
    main()
