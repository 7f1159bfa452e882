"""The first question after a start: `graphwire serve` started afresh (a subprocess on a free loopback port) against
the stores the environment names (NEO4J_URI, CHROMA_PATH, ...), timed to GET /health/live and to GET /health/ready,
then the first POST /v1/query (the default mode, the extractive answerer) and the first POST /v1/retrieve right
after ready, then the next questions, with the server's own `timings_ms` of the first one. Each start runs once
with STARTUP_WARMUP=wait (the default: ready after the warm-up) and once with STARTUP_WARMUP=off (no warm-up: the
first question builds what it reads, as before the warm-up existed), alternating which goes first, so both are
measured in the same run under the same load.

    python -m bench.first_question --questions data/demo/questions.json --starts 3 --out bench/first_question
    python -m bench.first_question --starts 5 --out bench/first_question_multihop-rag   # MultiHopRAG questions

Nothing is written to the stores; API_KEY, when set, is sent with every request.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from bench._results import ROOT, command_line, finish_report, machine
from graphwire.core.servers.neo4j_server import free_port
from graphwire.eval.datasets import DEFAULT_QUESTIONS, load_questions
from graphwire.eval.selection import select

VARIANTS = {"warm-up before ready (wait)": "wait", "no warm-up (off)": "off"}  # STARTUP_WARMUP
NEXT = 5  # questions asked after the first query and the first retrieve


def _headers() -> dict[str, str]:
    key = os.environ.get("API_KEY")
    return {"X-API-Key": key} if key else {}


def _wait_for(client: httpx.Client, path: str, proc: subprocess.Popen[bytes], timeout_s: float) -> float:
    """Poll `path` every 20 ms until it answers 200; seconds since the process started are measured by the caller."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"graphwire serve exited with {proc.returncode}")
        try:
            if client.get(path).status_code == 200:
                return time.perf_counter()
        except httpx.TransportError:
            pass
        time.sleep(0.02)
    raise RuntimeError(f"{path} did not answer 200 within {timeout_s:.0f} s")


def _ask(client: httpx.Client, path: str, question: str) -> tuple[float, dict[str, Any]]:
    body: dict[str, Any] = {"question": question}
    if path == "/v1/query":
        body["answerer"] = "extractive"  # no LLM: what the first question costs the retrieval, not a model
    started = time.perf_counter()
    response = client.post(path, json=body)
    elapsed = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    return elapsed, response.json()


def one_start(questions: list[str], warmup: str, timeout_s: float) -> dict[str, Any]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING", "STARTUP_WARMUP": warmup}
    cmd = [sys.executable, "-m", "graphwire.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port)]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=_headers(), timeout=120) as client:
            live = _wait_for(client, "/health/live", proc, timeout_s) - started
            ready = _wait_for(client, "/health/ready", proc, timeout_s) - started
            query_ms, first = _ask(client, "/v1/query", questions[0])
            retrieve_ms, _ = _ask(client, "/v1/retrieve", questions[1])
            next_ms = [_ask(client, "/v1/query", q)[0] for q in questions[2 : 2 + NEXT]]
            caches = client.get("/health/ready").json().get("checks", {}).get("caches", {})
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return {
        "live_s": round(live, 2),
        "ready_s": round(ready, 2),
        "first_query_ms": round(query_ms, 1),
        "first_retrieve_ms": round(retrieve_ms, 1),
        "next_query_ms": [round(ms, 1) for ms in next_ms],
        "first_query_timings_ms": first.get("timings_ms", {}),
        "warmup": caches.get("details", {}).get("warmup"),  # shown with the key when API_KEY is set
    }


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def med(key: str) -> float:
        return round(statistics.median(run[key] for run in runs), 2)

    following = [ms for run in runs for ms in run["next_query_ms"]]
    return {
        "live_s": med("live_s"),
        "ready_s": med("ready_s"),
        "first_query_ms": med("first_query_ms"),
        "first_query_max_ms": max(run["first_query_ms"] for run in runs),
        "first_retrieve_ms": med("first_retrieve_ms"),
        "next_query_median_ms": round(statistics.median(following), 1) if following else None,
        "next_query_max_ms": max(following) if following else None,
        "first_query_server_total_ms": round(
            statistics.median(run["first_query_timings_ms"].get("total", 0.0) for run in runs), 1
        ),
    }


def _stages(timings: dict[str, float], top: int = 6) -> str:
    """The slowest top-level stages of one response's `timings_ms` (sub-stages `a.b` left out)."""
    stages = sorted(((k, v) for k, v in timings.items() if "." not in k and k != "total"), key=lambda kv: -kv[1])
    return ", ".join(f"{k} {v:.0f}" for k, v in stages[:top])


def render(report: dict[str, Any]) -> str:
    lines = [
        "# The first question after a start",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end. "
        f"`graphwire serve` started {report['starts']} times per row against the stores of the environment; "
        f"questions from `{report['questions_path']}`; the first `/v1/query` (default mode, extractive answerer) "
        f"and the first `/v1/retrieve` right after `/health/ready` answered 200, then {NEXT} more queries. Medians "
        "over the starts; seconds from the process start.",
        "",
        "| readiness | live s | ready s | first query ms (max) | first retrieve ms | next queries median ms (max) "
        "| first query server total ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for variant, row in report["variants"].items():
        s = row["summary"]
        lines.append(
            f"| {variant} | {s['live_s']} | {s['ready_s']} | {s['first_query_ms']} ({s['first_query_max_ms']}) "
            f"| {s['first_retrieve_ms']} | {s['next_query_median_ms']} ({s['next_query_max_ms']}) "
            f"| {s['first_query_server_total_ms']} |"
        )
    lines += ["", "Slowest stages of the first query (server `timings_ms`, first start, ms):", ""]
    for variant, row in report["variants"].items():
        lines.append(f"- {variant}: {_stages(row['runs'][0]['first_query_timings_ms'])}")
    warm = report["variants"].get("warm-up before ready (wait)", {}).get("runs", [{}])[0].get("warmup")
    if warm:
        steps = ", ".join(f"{k} {v:.0f}" for k, v in warm["steps_ms"].items())
        lines += ["", f"Warm-up steps of the first start (ms): {steps}; failed: {warm['errors'] or 'none'}."]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--starts", type=int, default=3, help="fresh starts per variant")
    parser.add_argument("--timeout-s", type=float, default=900.0, help="longest wait for live and for ready")
    parser.add_argument("--notes", type=Path, default=None, help="markdown appended to the report")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    picked = select(load_questions(args.questions), sample_size=2 + NEXT)
    questions = [q.query for q in picked]
    if len(questions) < 2 + NEXT:
        parser.error(f"{args.questions} holds fewer than {2 + NEXT} questions")
    variants: dict[str, Any] = {name: {"startup_warmup": value, "runs": []} for name, value in VARIANTS.items()}
    for start in range(args.starts):
        order = list(VARIANTS.items())
        for name, value in order if start % 2 == 0 else order[::-1]:  # alternated: load falls on both alike
            run = one_start(questions, value, args.timeout_s)
            variants[name]["runs"].append(run)
            print(f"start {start + 1} {name}: ready {run['ready_s']} s, first query {run['first_query_ms']} ms")
    for row in variants.values():
        row["summary"] = summary(row["runs"])
    report = {
        "command": command_line(),
        "machine": machine(),
        "questions_path": os.path.relpath(args.questions, ROOT),  # no folder of this machine in the report
        "starts": args.starts,
        "variants": variants,
    }
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
