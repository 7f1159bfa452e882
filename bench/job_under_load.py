"""Does a document job progress while the same API process serves queries? One uvicorn process on an emptied store:
the demo corpus is posted and ingested first, then --concurrency clients send POST /v1/retrieve for --duration
seconds, and one second in a job of --documents new documents is posted; the job's progress is read when the clients
stop, and the job is followed to its end.

    .venv/bin/python -m bench.job_under_load --wipe --out bench/job_under_load    # empties the Neo4j at NEO4J_URI
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results
from bench._server import start_api
from graphwire.core.clients.graph import Graph
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo" / "articles.jsonl"
QUESTION = "Who is the chief executive of the company Paradigm Ventures invested in?"


def _demo() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]


def _wait(client: httpx.Client, job_id: str, timeout_s: float = 600.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict[str, Any] = client.get(f"/v1/jobs/{job_id}").json()
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.5)
    raise TimeoutError(f"job {job_id} did not finish in {timeout_s:.0f} s")


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    settings = Settings()
    graph = Graph.from_settings(settings)
    graph.write("admin/wipe")
    graph.close()
    port = free_port()
    env = {"CHROMA_PATH": str(folder / "chroma"), "INGEST_STATE_PATH": str(folder / "state")}
    server = start_api(port, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=120) as client:
            seed = [dict(a, url=f"https://seed.example/{i}") for i, a in enumerate(_demo())]
            _wait(client, client.post("/v1/documents", json={"documents": seed}).json()["job_id"])
            articles = _demo()
            documents = [
                dict(
                    articles[i % len(articles)],
                    title=f"{articles[i % len(articles)]['title']} ({i})",
                    url=f"https://load.example/{i}",
                )  # fmt: skip
                for i in range(args.documents)
            ]
            served: list[float] = []
            stop_at = time.monotonic() + args.duration

            def query() -> None:
                with httpx.Client(base_url=base, timeout=120) as own:
                    while time.monotonic() < stop_at:
                        started = time.perf_counter()
                        own.post("/v1/retrieve", json={"question": QUESTION, "mode": args.mode})
                        served.append(time.perf_counter() - started)

            clients = [threading.Thread(target=query) for _ in range(args.concurrency)]
            for thread in clients:
                thread.start()
            time.sleep(1.0)
            posted_at = time.monotonic()
            job_id = client.post("/v1/documents", json={"documents": documents}).json()["job_id"]
            for thread in clients:
                thread.join()
            during = client.get(f"/v1/jobs/{job_id}").json()
            final = _wait(client, job_id)
            finished = final.get("finished_at")
            return {
                "command": command_line(),
                "machine": machine(),
                "mode": args.mode,
                "concurrency": args.concurrency,
                "duration_s": args.duration,
                "documents": args.documents,
                "queries_served": len(served),
                "queries_per_s": round(len(served) / args.duration, 1),
                "job_state_when_queries_stopped": during["state"],
                "documents_done_when_queries_stopped": during["progress"]["documents_done"],
                "seconds_of_load_the_job_had": round(stop_at - posted_at, 1),
                "job_final_state": final["state"],
                "job_finished_at": finished,
                "load_average": [round(x, 2) for x in os.getloadavg()],
            }
    finally:
        server.terminate()
        server.wait(timeout=30)


def render(r: dict[str, Any]) -> str:
    return "\n".join(
        [
            "# A document job under query load (one API process)",
            "",
            f"`{r['command']}` ({r['machine']}; load average after {r['load_average']}).",
            "",
            f"- {r['concurrency']} clients sent POST /v1/retrieve (mode {r['mode']}) for {r['duration_s']} s: "
            f"{r['queries_served']} queries, {r['queries_per_s']} per second.",
            f"- A job of {r['documents']} documents was posted one second in, so it had "
            f"{r['seconds_of_load_the_job_had']} s of load: when the clients stopped it was "
            f"{r['job_state_when_queries_stopped']} with {r['documents_done_when_queries_stopped']} of "
            f"{r['documents']} documents committed; it ended {r['job_final_state']}.",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_wipe_flag(parser)
    parser.add_argument("--mode", default="joint")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--documents", type=int, default=120)
    parser.add_argument("--out", type=Path, default=Path("bench/job_under_load"))
    args = parser.parse_args()
    require_wipe(parser, args)
    with tempfile.TemporaryDirectory(prefix="graphwire-job-load-") as folder:
        results = run(args, Path(folder))
    write_results(args.out, results, render(results))
    print(render(results))


if __name__ == "__main__":
    main()
