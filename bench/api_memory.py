"""Resident memory of one API process after every retrieval mode has served a few questions.

Needs a Neo4j and a Chroma store holding an ingested corpus (settings from the environment), e.g.

    graphwire ingest data/demo/articles.jsonl
    .venv/bin/python bench/api_memory.py --label after --questions data/demo/questions.json

`--load-synthetic N` first fills the (empty) graph and chunk store with N synthetic one-chunk articles instead:
the generator and planted facts of bench/ingest_throughput.py written straight to Neo4j (no NLP), and the chunks
upserted to Chroma with random unit vectors in MiniLM's space (the API embeds questions with the real model; what is
measured is memory, not ranking).

    .venv/bin/python bench/api_memory.py --load-synthetic 50000
    .venv/bin/python bench/api_memory.py --label "50k synthetic, after" --questions synthetic

It starts `uvicorn app.main:create_app` (one worker) from `--root` (default: this checkout; point it at an export of
an older commit to measure "before"), reads VmRSS from /proc/<pid>/status after start-up, then sends `--per-mode`
POST /v1/query requests (extractive answerer, so no LLM) to each mode in GET /v1/modes order, reading VmRSS after
each mode and VmHWM (peak) at the end. Each run is added under `--label` to bench/api_memory.json; the .md table is
rebuilt from every run recorded there.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._results import command_line, machine, write_results  # noqa: E402
from bench._server import start_api  # noqa: E402
from graphwire.core.clients.embeddings import MINILM_DIMENSION, MINILM_MODEL_ID  # noqa: E402
from graphwire.core.servers.neo4j_server import free_port  # noqa: E402
from graphwire.core.settings import EmbeddingBackend  # noqa: E402

OUT = ROOT / "bench" / "api_memory"


def status_kib(pid: int, field: str) -> int:
    """A `kB` field of /proc/<pid>/status (VmRSS, VmHWM), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


# For the --load-synthetic graph: two relation chains (auto routes them to ppr), two outlet yes/no questions (hybrid)
# and one naming an outlet the corpus lacks (vector), about entities of its first articles.
SYNTHETIC_QUESTIONS = [
    "Who is the chief executive of Summit Northwind Labs?",
    "Who is the chief executive of Arden Lattice Labs?",
    "Did Metro Business Wire report that Boreal Summit Labs is linked to Warsaw?",
    "Did The Ledger Daily report that Nia D Costa is linked to Flint Vantor Labs?",
    "What did Reuters report about Ivo D Varga?",
]


def load_questions(path: Path, limit: int) -> list[str]:
    """`path` is a JSON list of {question} or {query} records, or `synthetic` for SYNTHETIC_QUESTIONS."""
    if str(path) == "synthetic":
        return SYNTHETIC_QUESTIONS[:limit]
    records = json.loads(path.read_text(encoding="utf-8"))
    return [str(r.get("question") or r.get("query")) for r in records][:limit]


def measure(root: Path, questions: list[str], rounds: int) -> dict[str, Any]:
    port = free_port()
    server = start_api(port)
    mib = lambda kib: round(kib / 1024, 1)  # noqa: E731
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300) as client:
            client.get("/health")
            started = mib(status_kib(server.pid, "VmRSS"))
            modes = client.get("/v1/modes").json()["modes"]
            after_mode: dict[str, float] = {}
            errors: dict[str, int] = {}
            for round_ in range(rounds):
                for mode in modes:
                    for question in questions:
                        body = {"question": question, "mode": mode, "answerer": "extractive"}
                        response = client.post("/v1/query", json=body)
                        if response.status_code != 200:
                            errors[mode] = errors.get(mode, 0) + 1
                    if round_ == 0:  # the first pass shows what each mode adds
                        after_mode[mode] = mib(status_kib(server.pid, "VmRSS"))
            return {
                "rss_after_start_mib": started,
                "rss_after_mode_mib": after_mode,
                "rss_final_mib": mib(status_kib(server.pid, "VmRSS")),
                "peak_rss_mib": mib(status_kib(server.pid, "VmHWM")),
                "requests": len(questions) * len(modes) * rounds,
                "errors": errors,
            }
    finally:
        server.terminate()
        server.wait(timeout=30)


class RandomVectors:
    """Deterministic random unit vectors presented as MiniLM's vector space, so the API can open the collection."""

    backend = EmbeddingBackend.OFFLINE.value
    model_id = MINILM_MODEL_ID
    dimension = MINILM_DIMENSION

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            rng = np.random.default_rng(abs(hash(text)) % 2**32)
            v = rng.standard_normal(self.dimension).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.vstack(rows) if rows else np.zeros((0, self.dimension), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([text])[0]
        return vector


def load_synthetic(n: int) -> str:
    """N synthetic articles into the configured (empty) Neo4j and Chroma collection; returns what was written."""
    from bench.ingest_throughput import Synthetic, bench_writes
    from graphwire.core.clients.chroma import open_client
    from graphwire.core.clients.chunk_store import ChunkStore
    from graphwire.core.clients.graph import Graph
    from graphwire.core.settings import Settings
    from graphwire.core.stores.bootstrap import apply_schema
    from graphwire.ingest.chunker import chunk_article

    settings = Settings()
    graph = Graph.from_settings(settings)
    apply_schema(graph)
    written = bench_writes(graph, Synthetic(), n, settings.ingest_batch_size, 5_000)
    graph.close()
    synth = Synthetic()  # the same seed: the same articles again
    chunks = [chunk_article(synth.article(i)[0])[0] for i in range(n)]
    store = ChunkStore(open_client(settings), settings.chroma_collection, RandomVectors())  # type: ignore[arg-type]
    store.upsert(chunks)
    counts = written["graph_counts"]
    return f"{n:,} synthetic articles ({counts}), {len(chunks):,} chunks in Chroma"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# API process memory after warming every mode",
        "",
        "One uvicorn worker (`app.main:create_app`), VmRSS from /proc/<pid>/status after start-up, after each mode "
        "has answered its questions (POST /v1/query, extractive answerer, no LLM) and at the end; VmHWM is the peak. "
        "`before`: every graph-backed mode built its own graph state (graph and hybrid a name index and chunk cache "
        "each, ppr a third name index and a PPR snapshot, auto a fourth plus a pool of its own with a second graph, "
        "hybrid, ppr and snapshot); `after`: one `GraphServices` per process (retrieval/services.py), and auto and "
        "hybrid reuse the context's own mode instances.",
        "",
        "| run | code | corpus | machine | questions x rounds | after start MiB | final MiB | peak MiB | errors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, run in report["runs"].items():
        m = run["memory"]
        lines.append(
            f"| {label} | {run.get('code', '')} | {run['corpus']} | {run['machine']} | {run['questions']} x "
            f"{run['rounds']} | {m['rss_after_start_mib']} | {m['rss_final_mib']} | {m['peak_rss_mib']} "
            f"| {m['errors'] or 'none'} |"
        )
    pairs = [(label[: -len(", after")], label) for label in report["runs"] if label.endswith(", after")]
    deltas = []
    for name, after in pairs:
        before = report["runs"].get(f"{name}, before")
        if before is None:
            continue
        b, a = before["memory"], report["runs"][after]["memory"]
        deltas.append(
            f"- {name}: final {a['rss_final_mib'] - b['rss_final_mib']:+.1f} MiB, peak "
            f"{a['peak_rss_mib'] - b['peak_rss_mib']:+.1f} MiB; what warming hybrid and then auto added: before "
            f"{_step(b, 'hybrid'):+.1f} and {_step(b, 'auto'):+.1f} MiB, after {_step(a, 'hybrid'):+.1f} and "
            f"{_step(a, 'auto'):+.1f} MiB"
        )
    if deltas:
        lines += ["", "After minus before:", "", *deltas]
    lines += ["", "RSS (MiB) after each mode's first questions, in the order the modes were warmed:", ""]
    for label, run in report["runs"].items():
        steps = ", ".join(f"{mode} {rss}" for mode, rss in run["memory"]["rss_after_mode_mib"].items())
        lines.append(f"- {label}: {steps}")
    for note in report.get("notes") or []:
        lines += ["", note]
    lines += ["", "Commands:", ""]
    lines += [f"- {label}: `{run['command']}`" for label, run in report["runs"].items()]
    return "\n".join(lines) + "\n"


def _step(memory: dict[str, Any], mode: str) -> float:
    """RSS added while `mode` answered its first questions (modes are warmed in GET /v1/modes order)."""
    order = list(memory["rss_after_mode_mib"])
    if mode not in order or order.index(mode) == 0:
        return 0.0
    after = memory["rss_after_mode_mib"]
    return float(after[mode] - after[order[order.index(mode) - 1]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", default="", help="name of this run in the report, e.g. 'demo, after'")
    parser.add_argument("--code", default="", help="which code the server ran, for the report (e.g. a commit)")
    parser.add_argument("--render", action="store_true", help="only rebuild the .md from the recorded runs")
    parser.add_argument("--corpus", default="", help="what the graph holds, for the report")
    parser.add_argument("--questions", type=Path, default=ROOT / "data" / "demo" / "questions.json")
    parser.add_argument("--per-mode", type=int, default=5, help="questions each mode answers per round")
    parser.add_argument("--rounds", type=int, default=2, help="passes over every mode")
    parser.add_argument("--root", type=Path, default=ROOT, help="source tree the server runs from")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--load-synthetic", type=int, default=0, help="first write N synthetic articles (see above)")
    args = parser.parse_args()
    if args.load_synthetic:
        print(load_synthetic(args.load_synthetic), flush=True)
        return

    previous = args.out.with_suffix(".json")
    report: dict[str, Any] = json.loads(previous.read_text()) if previous.exists() else {"runs": {}}
    if args.render:
        write_results(args.out, report, markdown(report))
        return
    if not args.label:
        parser.error("--label is required")
    questions = load_questions(args.questions, args.per_mode)
    report["runs"][args.label] = {
        "command": command_line(),
        "code": args.code,
        "corpus": args.corpus,
        "machine": machine(),
        "questions": len(questions),
        "rounds": args.rounds,
        "memory": measure(args.root.resolve(), questions, args.rounds),
    }
    write_results(args.out, report, markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
