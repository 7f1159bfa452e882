"""What grows with the corpus: graph size, Neo4j and Chroma on disk, PPR snapshot and flat index memory, ingest time.

A synthetic news corpus is generated on the fly (seeded): companies, people, cities and outlets drawn from generated
name pools that grow with the corpus, one short article per record (acquisitions, investments, appointments, board
seats, headquarters). It is ingested in cumulative steps (`--steps 500,1000,2000,4000`: each step adds the records
up to that size) with the offline extractor and the vector store on, exactly as `graphwire ingest` runs; after each
step it measures the graph, the stores on disk, the PPR snapshot, the flat index and `graph`/`ppr` latency.

    NEO4J_URI=... NEO4J_PASSWORD=... python -m bench.scaling --wipe --steps 500,1000,2000,4000 --out bench/scaling

It wipes the Neo4j at NEO4J_URI and uses a temporary Chroma folder; vectors are written only while the corpus is at
most `--vectors-up-to` records (embedding on a shared 2-core CPU is the slowest part by far; the vector store's size
per chunk is constant, so the larger steps measure the graph side). Neo4j's store on disk is not measured here: its
files catch up with the page cache only at checkpoints (Community has no procedure to force one), so measure
$NEO4J_HOME/data/databases/neo4j after `graphwire neo4j stop`, which checkpoints.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results
from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.ingest.service import ExtractorChoice, ingest_loaded, ingest_options
from graphwire.retrieval.flat.lexical import BM25Retriever
from graphwire.retrieval.registry import RetrievalContext

SYLLABLES = ["ka", "ven", "tor", "li", "mar", "qua", "sel", "dor", "bri", "no", "vex", "an", "ril", "gos", "tem", "ul"]
SUFFIXES = ["Systems", "Labs", "Energy", "Logistics", "Capital", "Robotics", "Foods", "Networks", "Bank", "Motors"]
FIRST = ["Ada", "Felix", "Mara", "Jonah", "Priya", "Owen", "Ines", "Hanna", "Marcus", "Nora", "Lena", "Tomas"]
OUTLETS = ["Circuit Weekly", "The Ledger Daily", "Harbor Times", "Northgate Daily", "Metro Wire", "Capital Post"]
CITIES = ["Berlin", "Munich", "Lisbon", "Oslo", "Denver", "Austin", "Osaka", "Lyon", "Porto", "Leeds", "Turin"]


def _word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


class Corpus:
    """Deterministic synthetic articles; record i is the same whatever the step sizes."""

    def __init__(self, size: int, seed: int = 15) -> None:
        rng = random.Random(seed)
        self.companies = [f"{_word(rng, 3)} {rng.choice(SUFFIXES)}" for _ in range(max(50, size // 3))]
        self.people = [f"{rng.choice(FIRST)} {_word(rng, 2)}" for _ in range(max(50, size // 2))]
        self.seed = seed

    def article(self, i: int) -> Article:
        """Names come from the first part of each pool that grows with i, so a bigger corpus has more entities."""
        rng = random.Random(self.seed * 1_000_003 + i)
        a, b, c = rng.sample(self.companies[: 50 + i // 3], 3)
        person, other = rng.sample(self.people[: 50 + i // 2], 2)
        city, outlet = rng.choice(CITIES), rng.choice(OUTLETS)
        amount = rng.randint(5, 900)
        sentences = [
            f"{a} agreed to acquire {b} for ${amount} million, the companies said on Monday.",
            f"{person} is the chief executive of {a}, which is based in {city}.",
            f"{c} invested in {b} last year, and {other} joined the board of {c}.",
            f"Analysts at {outlet} said the deal gives {a} a larger footprint in {city} and beyond.",
            f"{b} supplies parts to {c}; its founder {other} declined to comment on the terms.",
        ]
        rng.shuffle(sentences)
        day = 1 + i % 28
        return Article(
            title=f"{a} to buy {b} for ${amount} million (report {i})",
            body=" ".join(sentences),
            source=outlet,
            published_at=f"2024-{1 + i % 12:02d}-{day:02d}",  # type: ignore[arg-type]
            url=f"https://bench.graphwire.dev/scaling/{i}",
        )


def folder_mib(path: Path) -> float | None:
    if not path.exists():
        return None
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return round(total / 2**20, 1)


def latency_ms(retrieve: Any, questions: list[str]) -> dict[str, float]:
    for q in questions:
        retrieve(q, 10)  # warm-up
    times = []
    for q in questions:
        started = time.perf_counter()
        retrieve(q, 10)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}


def stage_medians(retrieve: Any, questions: list[str]) -> dict[str, float]:
    """The median of each stage timing a mode reports (`timings_ms`) over the questions."""
    stages: dict[str, list[float]] = {}
    for q in questions:
        for stage, ms in retrieve(q, 10).timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    return {stage: round(statistics.median(values), 1) for stage, values in stages.items()}


def measure(graph: Graph, settings: Settings, corpus: Corpus, size: int) -> dict[str, Any]:
    counts = {k: int(v) for k, v in graph.read("ingest/count_nodes")[0].items()}
    counts |= {k: int(v or 0) for k, v in graph.read("graph/fingerprint")[0].items()}  # mentions, relationships
    ctx = RetrievalContext(settings=settings, graph=lambda: graph)
    started = time.perf_counter()
    snapshot = ctx.services().snapshots.snapshot()
    snapshot_s = time.perf_counter() - started
    flat = ctx.flat_retrievers()["bm25"]
    assert isinstance(flat, BM25Retriever)
    started = time.perf_counter()
    index = flat.index.snapshot()
    flat_s = time.perf_counter() - started
    rng = random.Random(size)
    questions = [f"Who is the chief executive of the company that agreed to acquire {rng.choice(corpus.companies)}?"
                 for _ in range(20)]  # fmt: skip
    return {
        "documents": size,
        "graph": counts,
        "chroma_mib": folder_mib(settings.chroma_path),
        "vectors": ChunkStore.from_settings(settings).count(),
        "ppr_snapshot": {"entities": snapshot.n_entities, "chunks": snapshot.n_chunks,
                         "mib": round(snapshot.memory_bytes() / 2**20, 2), "build_s": round(snapshot_s, 2)},
        "flat_index": {"chunks": len(index.chunks), "build_s": round(flat_s, 2),
                       "vectors_mib": round(index.vectors.nbytes / 2**20, 2)},
        "latency": {mode: latency_ms(ctx.retriever(mode).retrieve, questions) for mode in ("graph", "ppr")},
        "graph_stages": stage_medians(ctx.retriever("graph").retrieve, questions),
        "rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="500,1000,2000,4000", help="cumulative corpus sizes, comma-separated")
    parser.add_argument("--vectors-up-to", type=int, default=1000, help="write vectors only for the first N records")
    parser.add_argument("--out", type=Path, default=Path("bench/scaling"))
    parser.add_argument(
        "--measure-only", action="store_true", help="measure the store at NEO4J_URI as it is (a run's last step)"
    )
    add_wipe_flag(parser)
    args = parser.parse_args()
    if args.measure_only:
        measure_only(args.out)
        return
    require_wipe(parser, args)
    logging.disable(logging.WARNING)
    steps = [int(s) for s in args.steps.split(",")]
    stores = Path(tempfile.mkdtemp(prefix="graphwire-scaling-"))
    settings = Settings(chroma_path=stores / "chroma", chroma_collection="scaling", ingest_state_path=stores / "state")
    graph = Graph.from_settings(settings)
    empty_graph(graph)
    apply_schema(graph)  # the entity-name fulltext index the graph retriever reads
    corpus, done, rows = Corpus(max(steps)), 0, []
    try:
        for size in steps:
            articles = [corpus.article(i) for i in range(done, size)]
            store = ChunkStore.from_settings(settings) if size <= args.vectors_up_to else None
            options = ingest_options(settings, progress=False)
            report = ingest_loaded(articles, graph, settings, options=options, chunk_store=store,
                                   extractor=ExtractorChoice.OFFLINE, n_process=1)  # fmt: skip
            done = size
            row = measure(graph, settings, corpus, size)
            row["ingest"] = {"documents": report.documents_written, "chunks": report.chunks_written,
                             "seconds": round(report.elapsed_s, 1), "chunks_per_s": round(report.chunks_per_s, 1),
                             "extract_s": round(report.extract_s, 1), "write_s": round(report.write_s, 1),
                             "vector_s": round(report.vector_s, 1), "link_s": round(report.link_s, 1)}  # fmt: skip
            row["load"] = round(os.getloadavg()[0], 1)
            row["vectors_written"] = store is not None
            rows.append(row)
            print(row, flush=True)
            results = {"command": command_line(), "machine": machine(), "steps": rows}
            figure = args.out.with_suffix(".png")
            write_results(args.out, results, markdown(results, figure.name))  # after every step: a long run keeps it
            plot(results, figure)
    finally:
        graph.close()
        shutil.rmtree(stores, ignore_errors=True)


def measure_only(out: Path) -> None:
    """The measurements of one step on the store as it is, without vectors (the run's Chroma folder is gone)."""
    logging.disable(logging.WARNING)
    stores = Path(tempfile.mkdtemp(prefix="graphwire-scaling-"))
    settings = Settings(chroma_path=stores / "chroma", chroma_collection="scaling", ingest_state_path=stores / "state")
    graph = Graph.from_settings(settings)
    try:
        size = int(graph.read("ingest/count_nodes")[0]["documents"])
        row = measure(graph, settings, Corpus(size), size)
    finally:
        graph.close()
        shutil.rmtree(stores, ignore_errors=True)
    row["load"] = round(os.getloadavg()[0], 1)
    results = {"command": command_line(), "machine": machine(), "measured": row}
    write_results(out, results)
    print(row, flush=True)


def markdown(r: dict[str, Any], figure: str) -> str:
    """The report; `figure`: the plot's file name beside it."""
    lines = [
        "# What grows with the corpus",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']}; 1-minute load average after each step: "
        + ", ".join(str(s["load"]) for s in r["steps"])
        + " (the machine was shared).",
        "",
        "Synthetic news corpus (bench/scaling.py), offline extractor, cumulative steps: each row adds the documents "
        "since the previous one. Vectors (bge-small-en-v1.5, 384 dimensions) are written only for the steps whose "
        "Chroma column has a value; after that the vector store holds the earlier chunks and the row measures the "
        "graph side.",
        "",
        "| documents | chunks | entities | relationships | Chroma MiB | PPR snapshot MiB (build s) "
        "| flat index build s | step ingest s (chunks/s) | graph p50 / p95 ms | ppr p50 / p95 ms | peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in r["steps"]:
        g, p, i = s["graph"], s["ppr_snapshot"], s["ingest"]
        chroma, flat = (s["chroma_mib"], s["flat_index"]["build_s"]) if s["vectors_written"] else ("-", "-")
        lines.append(
            f"| {s['documents']} | {g.get('chunks', '?')} | {g.get('entities', '?')} | {g.get('relationships', '?')} "
            f"| {chroma} | {p['mib']} ({p['build_s']}) | {flat} "
            f"| {i['seconds']} ({i['chunks_per_s']}) | {_p50_p95(s, 'graph')} | {_p50_p95(s, 'ppr')} | {s['rss_mib']} |"
        )
    lines += ["", f"![what grows with the documents]({figure})"]
    return "\n".join(lines)


def _p50_p95(step: dict[str, Any], mode: str) -> str:
    latency = step["latency"][mode]
    return f"{latency['p50_ms']} / {latency['p95_ms']}"


def plot(r: dict[str, Any], path: Path) -> None:
    """What grows with the documents, one panel each (log-scaled documents)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = r["steps"]
    docs = [s["documents"] for s in steps]
    panels = [
        ("ingest chunks/s (step)", {"chunks/s": [s["ingest"]["chunks_per_s"] for s in steps]}),
        ("query ms", {f"{m} {q}": [s["latency"][m][f"{q}_ms"] for s in steps]
                      for m in ("graph", "ppr") for q in ("p50", "p95")}),
        ("PPR snapshot", {"MiB": [s["ppr_snapshot"]["mib"] for s in steps],
                          "build s": [s["ppr_snapshot"]["build_s"] for s in steps]}),
        ("graph size (thousands)", {k: [s["graph"].get(k, 0) / 1000 for s in steps]
                                    for k in ("entities", "relationships")}),
        ("peak RSS MiB", {"bench process": [s["rss_mib"] for s in steps]}),
    ]  # fmt: skip
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.4))
    for ax, (title, series) in zip(axes, panels, strict=True):
        for label, values in series.items():
            ax.plot(docs, values, marker="o", label=label)
        ax.set_xscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("documents")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
