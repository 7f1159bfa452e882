"""What grows with the corpus: graph size, Neo4j and Chroma on disk, PPR snapshot and flat index memory, ingest time.

A synthetic news corpus is generated on the fly (seeded): companies, people, cities and outlets drawn from generated
name pools that grow with the corpus, one short article per record (acquisitions, investments, appointments, board
seats, headquarters). It is ingested in cumulative steps (`--steps 500,1000,2000,4000`: each step adds the records
up to that size) with the offline extractor and the vector store on, exactly as `graphwire ingest` runs; after each
step it measures the graph, the stores on disk, the PPR snapshot, the flat index, every mode's latency in process,
and an API process started afresh on the store (`graphwire.app`): seconds to ready, the first question after ready,
every mode's latency over HTTP, and the process's resident memory.

    NEO4J_URI=... NEO4J_PASSWORD=... python -m bench.scaling --wipe --steps 500,1000,2000,4000 --out bench/scaling

It wipes the Neo4j at NEO4J_URI and uses a temporary Chroma folder; vectors are written for every record unless
`--vectors-up-to N` stops them after N records (the larger steps then measure the graph side and the flat modes rank
the first N). Neo4j's store on disk is not measured here: its
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

import httpx

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results
from bench._server import start_api, status_mib
from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.ingest.service import ExtractorChoice, ingest_loaded, ingest_options
from graphwire.retrieval.flat.lexical import BM25Retriever
from graphwire.retrieval.registry import MODES, RetrievalContext

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


def served(settings: Settings, questions: list[str]) -> dict[str, Any]:
    """An API process started afresh on the stores: seconds to GET /health/ready, the first POST /v1/retrieve after
    it (default mode), then every mode's p50/p95 over HTTP (one warm-up pass each) and VmRSS after start, after
    every mode, and at its peak (VmHWM)."""
    env = {"CHROMA_PATH": str(settings.chroma_path), "CHROMA_COLLECTION": settings.chroma_collection,
           "INGEST_STATE_PATH": str(settings.ingest_state_path), "LOG_LEVEL": "WARNING"}  # fmt: skip
    port = free_port()
    started = time.perf_counter()
    server = start_api(port, env=env, timeout_s=600)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as client:
            while client.get("/health/ready").status_code != 200:
                time.sleep(0.2)
            ready_s = time.perf_counter() - started
            rss_ready = status_mib(server.pid, "VmRSS")
            first = time.perf_counter()
            client.post("/v1/retrieve", json={"question": questions[0], "top_k": 10}).raise_for_status()
            first_ms = (time.perf_counter() - first) * 1000

            def retrieve(mode: str) -> Any:
                def call(question: str, top_k: int) -> None:
                    body = {"question": question, "mode": mode, "top_k": top_k}
                    client.post("/v1/retrieve", json=body).raise_for_status()

                return call

            latency = {mode: latency_ms(retrieve(mode), questions) for mode in MODES}
            return {"ready_s": round(ready_s, 1), "first_retrieve_ms": round(first_ms, 1), "rss_ready_mib": rss_ready,
                    "latency": latency, "rss_after_mib": status_mib(server.pid, "VmRSS"),
                    "peak_rss_mib": status_mib(server.pid, "VmHWM")}  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=60)


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
        "latency": {mode: latency_ms(ctx.retriever(mode).retrieve, questions) for mode in MODES},
        "graph_stages": stage_medians(ctx.retriever("graph").retrieve, questions),
        "joint_stages": stage_medians(ctx.retriever("joint").retrieve, questions),
        "rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "api": served(settings, questions),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", default="500,1000,2000,4000", help="cumulative corpus sizes, comma-separated")
    parser.add_argument(
        "--vectors-up-to", type=int, default=0, help="write vectors only for the first N records (0: all)"
    )
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
            store = ChunkStore.from_settings(settings) if not args.vectors_up_to or size <= args.vectors_up_to else None
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
    steps = r["steps"]
    modes = list(steps[0]["latency"])
    lines = [
        "# What grows with the corpus",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']}; 1-minute load average after each step: "
        + ", ".join(str(s["load"]) for s in steps)
        + ".",
        "",
        "Synthetic news corpus (bench/scaling.py), offline extractor, cumulative steps: each row adds the documents "
        "since the previous one. Vectors (bge-small-en-v1.5, 384 dimensions) are written for the steps whose Chroma "
        "column has a value; a `-` means the vector store holds the earlier chunks only and the row measures the "
        'graph side. Latencies: 20 questions per step ("Who is the chief executive of the company that agreed to '
        'acquire X?", X drawn from the corpus), each asked once to warm up, then timed.',
        "",
        "## Stores and ingest",
        "",
        "| documents | chunks | entities | relationships | Chroma MiB | PPR snapshot MiB (build s) "
        "| flat index MiB (build s) | step ingest s (chunks/s) | of which vectors s | bench process peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in steps:
        g, p, i, f = s["graph"], s["ppr_snapshot"], s["ingest"], s["flat_index"]
        chroma = s["chroma_mib"] if s["vectors_written"] else "-"
        lines.append(
            f"| {s['documents']} | {g.get('chunks', '?')} | {g.get('entities', '?')} | {g.get('relationships', '?')} "
            f"| {chroma} | {p['mib']} ({p['build_s']}) | {f.get('vectors_mib', '-')} ({f['build_s']}) "
            f"| {i['seconds']} ({i['chunks_per_s']}) | {i.get('vector_s', '-')} | {s['rss_mib']} |"
        )
    lines += ["", "## Retrieval latency in process, p50 / p95 ms", ""]
    lines += _latency_table(steps, modes, lambda s: s["latency"])
    if all("api" in s for s in steps):
        lines += ["", "## The API started afresh on the store (one uvicorn worker)", ""]
        lines += [
            "| documents | seconds to ready | first retrieve after ready ms | RSS at ready MiB "
            "| RSS after every mode MiB | peak RSS MiB |",
            "|---|---|---|---|---|---|",
        ]
        for s in steps:
            a = s["api"]
            lines.append(
                f"| {s['documents']} | {a['ready_s']} | {a['first_retrieve_ms']} | {a['rss_ready_mib']} "
                f"| {a['rss_after_mib']} | {a['peak_rss_mib']} |"
            )
        lines += ["", "POST /v1/retrieve over HTTP (loopback), p50 / p95 ms:", ""]
        lines += _latency_table(steps, modes, lambda s: s["api"]["latency"])
    lines += ["", f"![what grows with the documents]({figure})"]
    return "\n".join(lines)


def _latency_table(steps: list[dict[str, Any]], modes: list[str], of: Any) -> list[str]:
    rows = ["| documents | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for s in steps:
        cells = [f"{of(s)[m]['p50_ms']} / {of(s)[m]['p95_ms']}" for m in modes]
        rows.append(f"| {s['documents']} | " + " | ".join(cells) + " |")
    return rows


def plot(r: dict[str, Any], path: Path) -> None:
    """What grows with the documents, one panel each (log-scaled documents)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = r["steps"]
    docs = [s["documents"] for s in steps]
    api_rss = {"API": [s["api"]["peak_rss_mib"] for s in steps]} if all("api" in s for s in steps) else {}
    panels = [
        ("ingest chunks/s (step)", {"chunks/s": [s["ingest"]["chunks_per_s"] for s in steps]}),
        ("query p95 ms (in process)", {m: [s["latency"][m]["p95_ms"] for s in steps] for m in steps[0]["latency"]}),
        ("PPR snapshot", {"MiB": [s["ppr_snapshot"]["mib"] for s in steps],
                          "build s": [s["ppr_snapshot"]["build_s"] for s in steps]}),
        ("graph size (thousands)", {k: [s["graph"].get(k, 0) / 1000 for s in steps]
                                    for k in ("entities", "relationships")}),
        ("peak RSS MiB", {"bench process": [s["rss_mib"] for s in steps]} | api_rss),
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
