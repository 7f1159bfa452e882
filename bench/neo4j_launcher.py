"""Launcher numbers: cold Maven build (empty local repository), start time to Bolt ready, memory, size on disk.

    .venv/bin/python -m bench.neo4j_launcher                    # everything (the cold build downloads ~130 MB)
    .venv/bin/python -m bench.neo4j_launcher --skip-cold-build  # start/memory only

Writes bench/neo4j_launcher.json and bench/neo4j_launcher.md. Runs on free ports in temp folders; touches nothing else.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from tqdm import tqdm

from bench._results import write_results
from graphwire.core.clients.graph import Graph
from graphwire.core.paths import maven_project
from graphwire.core.servers.neo4j_server import LocalNeo4j, free_port
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema

OUT = Path(__file__).resolve().parent
COMMAND = "`.venv/bin/python -m bench.neo4j_launcher" + (
    " --skip-cold-build`" if "--skip-cold-build" in sys.argv else "`"
)


def dir_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20, 1)


def cold_build() -> dict[str, Any]:
    """Build a copy of tools/neo4j against an empty Maven repository (everything from Maven Central)."""
    with tempfile.TemporaryDirectory(prefix="gw-cold-") as tmp:
        work, repo = Path(tmp) / "launcher", Path(tmp) / "m2"
        shutil.copytree(maven_project("neo4j"), work, ignore=shutil.ignore_patterns("target"))
        cmd = ["mvn", "-q", "-B", "-f", str(work / "pom.xml"), f"-Dmaven.repo.local={repo}", "-DskipTests", "package"]
        started = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        seconds = time.perf_counter() - started
        lib = work / "target" / "lib"
        return {
            "cold_build_s": round(seconds, 1),
            "lib_mb": dir_mb(lib),
            "lib_jars": len(list(lib.glob("*.jar"))),
            "maven_repo_mb": dir_mb(repo),
        }


def write_load(settings: Settings, nodes: int, batch: int = 1000) -> dict[str, Any]:
    graph = Graph.from_settings(settings)
    try:
        apply_schema(graph)
        graph.write("bench/node_index")
        graph.write("admin/await_indexes", timeout_s=60)
        text = "lorem ipsum dolor sit amet " * 8
        rows = [{"id": i, "name": f"node {i}", "text": text} for i in range(nodes)]
        links = [{"id": i, "link": (i * 7919 + 1) % nodes, "weight": i % 10} for i in range(nodes)]
        started = time.perf_counter()
        graph.write_batches("bench/create_nodes", rows, batch)
        graph.write_batches("bench/link_nodes", links, batch)
        seconds = time.perf_counter() - started
        counts = graph.read("bench/count_nodes")[0]
    finally:
        graph.close()
    return {"write_s": round(seconds, 1), **counts}


def timed_start(server: LocalNeo4j) -> float:
    started = time.perf_counter()
    server.start(timeout_s=600)
    return round(time.perf_counter() - started, 1)


def starts_and_memory(restarts: int, nodes: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gw-start-") as tmp:
        home = Path(tmp) / "neo4j"
        server = LocalNeo4j(home, bolt_port=free_port(), http_port=free_port())  # default 1g heap, 512m page cache
        server.build()
        try:
            first = timed_start(server)
            time.sleep(5)
            idle_rss = server.status().rss_mb
            settings = Settings(
                _env_file=None, neo4j_uri=server.bolt_uri, neo4j_password=SecretStr(server.ensure_password())
            )  # type: ignore[call-arg]
            load = write_load(settings, nodes)
            loaded_rss = server.status().rss_mb
            data_mb = dir_mb(home / "data")
            restart_s: list[float] = []
            for _ in tqdm(range(restarts), desc="restarts"):
                server.stop()
                restart_s.append(timed_start(server))
        finally:
            server.stop()
    return {
        "first_start_s": first,
        "restart_s": restart_s,
        "restart_median_s": statistics.median(restart_s) if restart_s else None,
        "rss_idle_mb": round(idle_rss or 0),
        "rss_after_load_mb": round(loaded_rss or 0),
        "data_after_load_mb": data_mb,
        "load": load,
    }


def context() -> dict[str, Any]:
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    return {"cpus": os.cpu_count(), "loadavg_1m_at_start": round(os.getloadavg()[0], 1), "java": java}


def render(results: dict[str, Any]) -> str:
    ctx, run = results["context"], results["run"]
    lines = [
        "# Neo4j launcher: build, start, memory",
        "",
        f"Command: {COMMAND}",
        "",
        f"Machine: {ctx['cpus']} CPUs, {ctx['java']}; 1-minute load average {ctx['loadavg_1m_at_start']} at the start, "
        f"{ctx.get('loadavg_1m_at_end', '?')} at the end (the machine is shared: start times grow with load). "
        "Neo4j 5.26.19 Community, embedded launcher, heap 1g, page cache 512m, auth on, Bolt + HTTP + Browser on "
        "127.0.0.1.",
        "",
        "| measure | value |",
        "|---|---|",
    ]
    if "build" in results:
        build = results["build"]
        lines += [
            f"| cold build (empty Maven repository, all from Maven Central) | {build['cold_build_s']} s |",
            f"| target/lib | {build['lib_mb']} MB, {build['lib_jars']} jars |",
            f"| Maven repository after the cold build | {build['maven_repo_mb']} MB |",
        ]
    load = run["load"]
    lines += [
        f"| first start on an empty home (creates system + neo4j DBs) to Bolt ready | {run['first_start_s']} s |",
        f"| warm restart to Bolt ready (median of {len(run['restart_s'])}: {run['restart_s']}) "
        f"| {run['restart_median_s']} s |",
        f"| RSS after start, idle | {run['rss_idle_mb']} MB |",
        f"| write load: {load['nodes']} nodes + {load['relationships']} relationships, batches of 1000 "
        f"| {load['write_s']} s |",
        f"| RSS after the write load | {run['rss_after_load_mb']} MB |",
        f"| data folder after the write load | {run['data_after_load_mb']} MB |",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-cold-build", action="store_true")
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=20_000)
    args = parser.parse_args()
    results: dict[str, Any] = {"context": context()}
    if not args.skip_cold_build:
        print("cold build (downloads ~130 MB from Maven Central)...", flush=True)
        results["build"] = cold_build()
    results["run"] = starts_and_memory(args.restarts, args.nodes)
    results["context"]["loadavg_1m_at_end"] = round(os.getloadavg()[0], 1)
    write_results(OUT / "neo4j_launcher", results, render(results))
    print(render(results))


if __name__ == "__main__":
    main()
