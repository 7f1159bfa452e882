"""Memory of one API process that serves many workspaces: the demo corpus ingested into N workspaces of one store
(the offline extractor, vectors in a temporary Chroma folder), then one uvicorn worker asked the same questions in
each workspace in turn (`X-Graphwire-Workspace`), its VmRSS read after each workspace's first questions. A workspace's
first request builds its services (retrieval context: name index, PPR snapshot, flat index; job worker), so the
growth per workspace is what one more loaded workspace costs. The server keeps at most WORKSPACES_LOADED_MAX of them
besides its own (`--loaded-max`, default the setting's): past that, RSS shows what letting one go gives back, and the
first workspaces asked again show what loading one again costs. Last, a fresh process searches each workspace's two
Chroma collections once with the embedded client: what that client keeps per workspace, which letting a workspace
go cannot release.

    NEO4J_URI=... NEO4J_PASSWORD=... python -m bench.workspace_memory --wipe --workspaces 24 \\
        --out bench/workspace_memory
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from tqdm import tqdm

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results
from bench._server import start_api, status_mib
from graphwire.client import Graphwire
from graphwire.core.clients.graph import Graph
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo" / "articles.jsonl"
QUESTIONS = [
    "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?",
    "Which company acquired Quarry Logistics?",
    "What did Circuit Weekly report about Lumen Labs?",
]


def ingest(settings: Settings, names: list[str]) -> float:
    """The demo corpus into each workspace; returns the seconds it took."""
    started = time.perf_counter()
    for name in tqdm(names, desc="ingest"):
        with Graphwire(settings, workspace=name) as client:
            client.ingest(DEMO, extractor="offline")
    return time.perf_counter() - started


def serve_and_measure(settings: Settings, names: list[str], loaded_max: int, again: int) -> dict[str, Any]:
    env = {"CHROMA_PATH": str(settings.chroma_path), "INGEST_STATE_PATH": str(settings.ingest_state_path),
           "STORE_LOCK_DIR": str(settings.store_lock_dir), "LOG_LEVEL": "WARNING",
           "WORKSPACES_LOADED_MAX": str(loaded_max)}  # fmt: skip
    port = free_port()
    server = start_api(port, env=env, timeout_s=300)
    rows = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300) as client:
            while client.get("/health/ready").status_code != 200:
                time.sleep(0.2)
            base = status_mib(server.pid, "VmRSS")
            for name in tqdm([*names, *names[:again]], desc="workspaces"):
                headers = {"X-Graphwire-Workspace": name}
                times = []
                for question in QUESTIONS:
                    body = {"question": question, "answerer": "extractive"}
                    started = time.perf_counter()
                    client.post("/v1/query", json=body, headers=headers).raise_for_status()
                    times.append((time.perf_counter() - started) * 1000)
                rss = status_mib(server.pid, "VmRSS")
                next_ms = statistics.median(times[1:])
                rows.append(
                    {"workspace": name, "rss_mib": rss, "first_ms": round(times[0], 1), "next_ms": round(next_ms, 1)}
                )
            peak = status_mib(server.pid, "VmHWM")
    finally:
        server.terminate()
        server.wait(timeout=60)
    return {"rss_ready_mib": base, "peak_rss_mib": peak, "loaded_max": loaded_max, "workspaces": rows}


def markdown(r: dict[str, Any]) -> str:
    rows, bound = r["served"]["workspaces"], r["served"]["loaded_max"]
    base = r["served"]["rss_ready_mib"]
    first = rows[: min(bound, r["workspaces"])]
    growth = [(b["rss_mib"] - a["rss_mib"]) for a, b in zip(first, first[1:], strict=False)]
    lines = [
        "# Memory of one API process serving many workspaces",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']}; load average {r['load']} (1, 5, 15 min) at the end. The demo corpus (22 articles) "
        f"ingested into each of {r['workspaces']} workspaces of one store ({r['ingest_s']} s); one uvicorn worker "
        f"(`graphwire.app.main:create_app`, WORKSPACES_LOADED_MAX={bound}, the default mode, the extractive answerer) "
        f"asked {len(QUESTIONS)} questions in each workspace in turn (X-Graphwire-Workspace), then in the first "
        f"{len(rows) - r['workspaces']} again; VmRSS read after each.",
        "",
        f"- RSS when ready (the server's own workspace, `default`, warmed and empty): {base} MiB",
        f"- RSS with {len(first)} workspaces loaded: {first[-1]['rss_mib']} MiB; after all {len(rows)} requests: "
        f"{rows[-1]['rss_mib']} MiB (peak {r['served']['peak_rss_mib']} MiB)",
        f"- growth per workspace loaded after the first, up to the bound: median {statistics.median(growth):.1f} "
        f"MiB, max {max(growth):.1f} MiB"
        if growth
        else "",
        "",
        f"- the embedded Chroma client, in a fresh process, searching each of the {r['chroma']['collections']} "
        f"collections (two a workspace: chunks and sentences) once: {r['chroma']['growth_mib']} MiB in all, median "
        f"{r['chroma']['median_per_collection_mib']} MiB a collection. The client keeps every index it has searched "
        "and letting a workspace go cannot release it: that is the growth past the bound below (a workspace asked "
        "again costs little). Run Chroma as a server (CHROMA_HOST) to keep the indexes out of the API process.",
        "",
        "| request | workspace | loaded | RSS MiB | first question in it ms | next questions (median) ms |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {i} | {row['workspace']} | {min(i, bound)} | {row['rss_mib']} | {row['first_ms']} | {row['next_ms']} |"
        for i, row in enumerate(rows, 1)
    ]
    return "\n".join(lines) + "\n"


def chroma_probe(path: Path) -> None:
    """In its own process: search every collection under `path` once, printing VmRSS (MiB) after each as JSON."""
    import chromadb
    import numpy as np
    from chromadb.config import Settings as ChromaSettings

    client = chromadb.PersistentClient(path=str(path), settings=ChromaSettings(anonymized_telemetry=False))
    names = sorted(c.name for c in client.list_collections())
    query = np.random.default_rng(0).random(384).tolist()
    rows = [{"collection": "", "rss_mib": status_mib(os.getpid(), "VmRSS")}]
    for name in names:
        client.get_collection(name).query(query_embeddings=[query], n_results=5)
        rows.append({"collection": name, "rss_mib": status_mib(os.getpid(), "VmRSS")})
    print(json.dumps(rows))


def measure_chroma(settings: Settings) -> dict[str, Any]:
    probe = [sys.executable, "-m", "bench.workspace_memory", "--chroma-probe", str(settings.chroma_path)]
    rows = json.loads(subprocess.run(probe, check=True, capture_output=True, text=True, cwd=ROOT).stdout)
    per_collection = [b["rss_mib"] - a["rss_mib"] for a, b in zip(rows, rows[1:], strict=False)]
    return {"collections": len(per_collection), "growth_mib": round(rows[-1]["rss_mib"] - rows[0]["rss_mib"], 1),
            "median_per_collection_mib": round(statistics.median(per_collection), 2)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspaces", type=int, default=24)
    parser.add_argument("--loaded-max", type=int, default=Settings.model_fields["workspaces_loaded_max"].default)
    parser.add_argument("--again", type=int, default=4, help="ask the first N workspaces again at the end")
    parser.add_argument("--out", type=Path, default=Path("bench/workspace_memory"))
    parser.add_argument("--chroma-probe", type=Path, help=argparse.SUPPRESS)  # the fresh process of measure_chroma
    add_wipe_flag(parser)
    args = parser.parse_args()
    if args.chroma_probe is not None:
        chroma_probe(args.chroma_probe)
        return
    require_wipe(parser, args)
    logging.disable(logging.WARNING)
    stores = Path(tempfile.mkdtemp(prefix="graphwire-workspaces-"))
    settings = Settings(
        chroma_path=stores / "chroma", ingest_state_path=stores / "state", store_lock_dir=stores / "locks"
    )
    graph = Graph.from_settings(settings)
    graph.write("admin/wipe")
    graph.close()
    names = [f"team-{i:02d}" for i in range(1, args.workspaces + 1)]
    try:
        ingest_s = ingest(settings, names)
        served = serve_and_measure(settings, names, args.loaded_max, args.again)
        chroma = measure_chroma(settings)
    finally:
        shutil.rmtree(stores, ignore_errors=True)
    results = {"command": command_line(), "machine": machine(), "load": [round(x, 2) for x in os.getloadavg()],
               "ingest_s": round(ingest_s, 1), "workspaces": len(names), "served": served,
               "chroma": chroma}  # fmt: skip
    write_results(args.out, results, markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
