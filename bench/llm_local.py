"""The LLM paths against a real local model with default settings: Qwen2.5-Coder-0.5B-Instruct Q4_K_M on llama.cpp
(xllamacpp, one thread), the model `graphwire llm fetch` assembles.

1. Prompt size and speed per extraction mode: the first `--mode-chunks` demo chunks extracted in json_schema, tools
   and prompt mode (prompt and completion tokens per chunk as the server counts them, seconds per chunk, completion
   tokens per second), after one call that puts the fixed system prompt in the server's cache.
2. `graphwire ingest data/demo --extractor llm` with default settings (no timeout overrides) into an emptied Neo4j,
   then the schema-conformance and provenance checks (cypher/browser/06 and 08) and `graphwire db check`.
3. `/v1/query` with `answerer: llm` (default settings: REQUEST_TIMEOUT_S 180, LLM_TIMEOUT_S 120) for the demo
   questions: status codes (no 504 wanted), latency, abstentions, citations, tokens.

    NEO4J_URI=bolt://127.0.0.1:17103 NEO4J_PASSWORD=... .venv/bin/python bench/llm_local.py --wipe --port 17106
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results  # noqa: E402
from bench._server import start_api  # noqa: E402
from graphwire.core.clients.graph import Graph  # noqa: E402
from graphwire.core.clients.llm import EXTRACTION_MODES, LLMClient  # noqa: E402
from graphwire.core.documents import Chunk  # noqa: E402
from graphwire.core.paths import DEMO_DIR  # noqa: E402
from graphwire.core.servers.llm_model import MODEL_NAME, model_path  # noqa: E402
from graphwire.core.servers.llm_server import LocalLLMServer, ServerOptions  # noqa: E402
from graphwire.core.servers.neo4j_server import free_port  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.ingest.chunker import chunk_article  # noqa: E402
from graphwire.ingest.extractors.llm import LLMExtractor  # noqa: E402
from graphwire.ingest.loaders import load_articles  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402

GRAPHWIRE = str(Path(sys.executable).with_name("graphwire"))


def _load() -> float:
    return os.getloadavg()[0]


def _demo_chunks(settings: Settings) -> list[Chunk]:
    articles = load_articles(DEMO_DIR / "articles.jsonl").articles
    return [c for a in articles for c in chunk_article(a, settings.chunk_size, settings.chunk_overlap)]


def measure_modes(base: Settings, chunks: list[Chunk]) -> list[dict[str, Any]]:
    schema = load_schema()
    rows = []
    for mode in EXTRACTION_MODES:
        settings = base.model_copy(update={"llm_extraction_mode": mode})
        extractor = LLMExtractor(settings, schema)
        warm = extractor.messages("OK")[:1] + [{"role": "user", "content": "Reply OK."}]
        LLMClient(settings).chat(warm, options=extractor.options("OK"))  # the fixed prompt into the server's cache
        per_chunk = []
        for chunk in chunks:
            before, started = extractor.usage.snapshot(), time.perf_counter()
            [outcome] = extractor.extract([chunk])
            used = extractor.usage.snapshot() - before
            seconds = time.perf_counter() - started
            per_chunk.append({"chars": len(chunk.text), "prompt_tokens": used.prompt_tokens,
                              "completion_tokens": used.completion_tokens, "seconds": round(seconds, 2),
                              "ok": not isinstance(outcome, Exception),
                              "entities": len(getattr(outcome, "entities", [])),
                              "relationships": len(getattr(outcome, "relations", []))})  # fmt: skip
        n = len(per_chunk)
        seconds = sum(c["seconds"] for c in per_chunk)
        completion = sum(c["completion_tokens"] for c in per_chunk)
        rows.append({"mode": mode, "chunks": n, "ok": sum(c["ok"] for c in per_chunk),
                     "prompt_tokens_per_chunk": round(sum(c["prompt_tokens"] for c in per_chunk) / n),
                     "completion_tokens_per_chunk": round(completion / n), "seconds_per_chunk": round(seconds / n, 1),
                     "completion_tokens_per_s": round(completion / seconds, 1) if seconds else 0.0,
                     "stats": extractor.stats.totals(), "per_chunk": per_chunk, "load": round(_load(), 1)})  # fmt: skip
        print(json.dumps({k: v for k, v in rows[-1].items() if k != "per_chunk"}), flush=True)
    return rows


def ingest_demo(env: dict[str, str]) -> dict[str, Any]:
    subprocess.run([GRAPHWIRE, "db", "reset", "--yes"], env=env, cwd=ROOT, check=True, capture_output=True)
    started, load = time.perf_counter(), _load()
    command = [GRAPHWIRE, "ingest", str(DEMO_DIR / "articles.jsonl"), "--extractor", "llm"]
    proc = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    summary = proc.stdout
    calls = re.search(r"LLM calls / tokens\s*│\s*(\d+) / (\d+)", summary)
    check = subprocess.run([GRAPHWIRE, "db", "check"], env=env, cwd=ROOT, capture_output=True, text=True)
    return {"exit_code": proc.returncode, "seconds": round(elapsed, 1), "load_at_start": round(load, 1),
            "load_at_end": round(_load(), 1), "llm_calls": int(calls.group(1)) if calls else None,
            "llm_tokens": int(calls.group(2)) if calls else None, "summary": summary[-6000:],
            "stderr_tail": proc.stderr[-1500:], "db_check_exit_code": check.returncode,
            "db_check": check.stdout[-2000:]}  # fmt: skip


def graph_checks(settings: Settings) -> dict[str, Any]:
    schema = load_schema()
    graph = Graph.from_settings(settings)
    try:
        patterns = graph.read("browser/06_schema_patterns")
        provenance = graph.read("browser/08_provenance_check")[0]
        labels = graph.read("ingest/count_entities_by_label")
    finally:
        graph.close()
    off = [p for p in patterns if not schema.allows(p["source"], p["type"], p["target"])]
    return {"patterns": patterns, "off_schema_patterns": off, "provenance": provenance,
            "off_schema_labels": [r for r in labels if r["label"] not in schema.labels],
            "entities_per_label": {r["label"]: r["n"] for r in labels}}  # fmt: skip


def ask(env: dict[str, str], port: int, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    api = start_api(port, env=env)
    out = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as client:
            for q in questions:
                started = time.perf_counter()
                response = client.post("/v1/query", json={"question": q["question"], "answerer": "llm"})
                body = response.json()
                seconds = round(time.perf_counter() - started, 1)
                out.append({"id": q["id"], "status": response.status_code, "seconds": seconds,
                            "answer": body.get("answer"), "expected": q.get("answer"),
                            "abstained": body.get("abstained"), "citations": len(body.get("citations") or []),
                            "usage": body.get("usage"), "error": body.get("error"),
                            "load": round(_load(), 1)})  # fmt: skip
                print(json.dumps(out[-1]), flush=True)
    finally:
        api.terminate()
        api.wait(timeout=30)
    return out


def markdown(results: dict[str, Any]) -> str:
    lines = ["# The LLM paths against a real local model (default settings)", "",
             f"Command: `{results['command']}`", "",
             f"Machine: {results['machine']} (shared with other work; load average per row). Model: "
             f"{MODEL_NAME} on llama.cpp (xllamacpp {results['xllamacpp']}), 1 thread, 4,096-token context.", "",
             "## Extraction prompt size and speed per mode (demo chunks)", "",
             "| mode | chunks ok | prompt tokens/chunk | completion tokens/chunk | s/chunk | completion tok/s | load |",
             "|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in results["modes"]:
        lines.append(f"| {r['mode']} | {r['ok']}/{r['chunks']} | {r['prompt_tokens_per_chunk']} | "
                     f"{r['completion_tokens_per_chunk']} | {r['seconds_per_chunk']} | "
                     f"{r['completion_tokens_per_s']} | {r['load']} |")  # fmt: skip
    lines += ["", "The prompt includes the fixed system message (the schema once) and the chunk; the server's prompt "
              "cache reads the fixed part once per run. LLMGraphTransformer's prompt was about 6,100 tokens for a "
              "150-token chunk (issue 12).", ""]  # fmt: skip
    if (ingest := results.get("ingest")) is not None:
        checks = results["graph_checks"]
        lines += ["## `graphwire ingest data/demo --extractor llm`, default settings", "",
                  f"Exit code {ingest['exit_code']}, {ingest['seconds']} s (load {ingest['load_at_start']} -> "
                  f"{ingest['load_at_end']}), LLM calls {ingest['llm_calls']}, tokens {ingest['llm_tokens']}.", "",
                  f"Schema conformance: {len(checks['off_schema_patterns'])} relationship patterns and "
                  f"{len(checks['off_schema_labels'])} labels outside the schema. Provenance check (every count "
                  f"should be 0): {checks['provenance']}. `graphwire db check` exit code "
                  f"{ingest['db_check_exit_code']}.", "",
                  f"Entities per label: {checks['entities_per_label']}; relationship patterns: "
                  f"{[(p['source'], p['type'], p['target'], p['n']) for p in checks['patterns']]}.", "",
                  "Summary table:", "", "```", ingest["summary"].strip(), "```", ""]  # fmt: skip
    if (answers := results.get("answers")) is not None:
        statuses: dict[int, int] = {}
        for a in answers:
            statuses[a["status"]] = statuses.get(a["status"], 0) + 1
        seconds = sorted(a["seconds"] for a in answers)
        lines += ["## `/v1/query` with `answerer: llm`, default settings", "",
                  f"Status codes: {statuses}; latency median {seconds[len(seconds) // 2]} s, max {seconds[-1]} s; "
                  f"abstained {sum(bool(a['abstained']) for a in answers)} of {len(answers)}; with citations "
                  f"{sum(a['citations'] > 0 for a in answers)}. A smoke run of a 0.5B model, not a quality claim.", "",
                  "| question | status | s | answer | expected |", "|---|---:|---:|---|---|"]  # fmt: skip
        for a in answers:
            answer = (a["answer"] or (a["error"] or {}).get("message", "")).replace("|", "/")[:90]
            lines.append(f"| {a['id']} | {a['status']} | {a['seconds']} | {answer} | {a['expected']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    add_wipe_flag(parser)
    parser.add_argument("--port", type=int, default=0, help="API port (default: a free one)")
    parser.add_argument("--mode-chunks", type=int, default=3)
    parser.add_argument("--questions", type=int, default=15)
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("llm_local"))
    args = parser.parse_args()
    require_wipe(parser, args)
    import xllamacpp

    results: dict[str, Any] = {"command": command_line(), "machine": machine(), "xllamacpp": xllamacpp.__version__}
    with tempfile.TemporaryDirectory(prefix="graphwire-llm-bench-") as tmp:
        options = ServerOptions(model_path(), free_port(), threads=1)
        with LocalLLMServer(options, log_path=Path(tmp) / "llm-server.log") as server:
            env = {**os.environ, "LLM_BASE_URL": server.base_url, "LLM_MODEL": MODEL_NAME,
                   "CHROMA_PATH": f"{tmp}/chroma", "INGEST_STATE_PATH": f"{tmp}/state",
                   "EXTRACTION_CACHE_PATH": f"{tmp}/extractions.sqlite", "STORE_LOCK_DIR": f"{tmp}/locks"}  # fmt: skip
            settings = Settings(llm_base_url=server.base_url, llm_model=MODEL_NAME)
            results["modes"] = measure_modes(settings, _demo_chunks(settings)[: args.mode_chunks])
            write_results(args.out, results, markdown(results))
            if not args.skip_ingest:
                results["ingest"] = ingest_demo(env)
                results["graph_checks"] = graph_checks(settings)
                write_results(args.out, results, markdown(results))
            questions = json.loads((DEMO_DIR / "questions.json").read_text())[: args.questions]
            results["answers"] = ask(env, args.port or free_port(), questions)
    write_results(args.out, results, markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
