"""Passage embedding in process against an OpenAI-compatible embeddings server (`EMBEDDING_BACKEND=openai`).

The server here runs the same model (bge-small int8 ONNX, the same batch size) behind `POST /v1/embeddings`, in its
own process on loopback, so the difference is the remote path itself: HTTP, JSON floats, the client's batching. It
tells an operator what moving embedding off the ingest machine costs and saves: the ingest process's CPU per text,
and the rate a server must beat to be worth it (a GPU server runs the model itself far faster).

    python -m bench.embedding_server --documents 40 --out bench/embedding_server

The corpus's first N documents are chunked as ingestion does; their chunks and sentences are embedded in the chunk
store's groups (256 chunks, then their sentences, one `embed` call each), both ways, twice, taking turns.
"""

from __future__ import annotations

import argparse
import base64
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from pydantic import BaseModel

from bench._results import command_line, machine, write_results
from graphwire.core.clients.chunk_store import embedding_groups
from graphwire.core.clients.embeddings import Embedder, embedder_from_settings
from graphwire.core.clients.openai_embedder import OpenAIEmbedder
from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_CORPUS
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.loaders import load_articles

MODEL = "bge-small-en-v1.5-int8"


class EmbeddingsRequest(BaseModel):
    model: str
    input: list[str]
    encoding_format: str = "float"  # the openai client asks for base64 (little-endian float32)


def app() -> Any:
    """The server: the configured offline embedder behind POST /v1/embeddings."""
    from fastapi import FastAPI

    embedder = embedder_from_settings(Settings())
    server = FastAPI()

    @server.post("/v1/embeddings")
    def embeddings(request: EmbeddingsRequest) -> dict[str, Any]:
        vectors = embedder.embed(request.input)
        if request.encoding_format == "base64":
            rows: list[Any] = [base64.b64encode(v.astype("<f4").tobytes()).decode() for v in vectors]
        else:
            rows = [v.tolist() for v in vectors]
        data = [{"object": "embedding", "index": i, "embedding": row} for i, row in enumerate(rows)]
        return {
            "object": "list",
            "data": data,
            "model": request.model,
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "uvicorn", "--factory", "bench.embedding_server:app", "--port", str(port),
               "--log-level", "warning"]  # fmt: skip
    process = subprocess.Popen(command, cwd=Path(__file__).resolve().parents[1])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            httpx.post(f"http://127.0.0.1:{port}/v1/embeddings", json={"model": MODEL, "input": ["warm"]}, timeout=60)
            return process
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError("the embeddings server did not start")


def server_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(embedder: Embedder, groups: list[list[str]], server_pid: int | None) -> dict[str, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    served = server_cpu_s(server_pid) if server_pid else 0.0
    vectors = np.concatenate([embedder.embed(texts) for texts in groups])
    return {
        "wall_s": time.perf_counter() - wall,
        "client_cpu_s": time.process_time() - cpu,
        "server_cpu_s": (server_cpu_s(server_pid) - served) if server_pid else None,
        "vectors": vectors,
    }


def summary(name: str, found: list[dict[str, Any]], texts: int) -> dict[str, Any]:
    wall = float(np.mean([r["wall_s"] for r in found]))
    client = float(np.mean([r["client_cpu_s"] for r in found]))
    served = [r["server_cpu_s"] for r in found if r["server_cpu_s"] is not None]
    return {
        "way": name,
        "texts": texts,
        "wall_s": round(wall, 1),
        "texts_per_s": round(texts / wall, 1),
        "client_cpu_ms_per_text": round(1000 * client / texts, 2),
        "server_cpu_ms_per_text": round(1000 * float(np.mean(served)) / texts, 2) if served else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--documents", type=int, default=40)
    parser.add_argument("--out", type=Path, default=Path("bench/embedding_server"))
    args = parser.parse_args()
    settings = Settings()
    chunks = [c for a in load_articles(args.corpus).articles[: args.documents] for c in chunk_article(a, 1000, 150)]
    groups = [[c.text for c in g] + rows.texts for g, rows in embedding_groups(chunks, sentences=True)]
    texts = sum(map(len, groups))
    local = embedder_from_settings(settings)
    port = free_port()
    server = start_server(port)
    remote = OpenAIEmbedder(MODEL, base_url=f"http://127.0.0.1:{port}/v1")
    runs: dict[str, list[dict[str, Any]]] = {"in process": [], "server": []}
    try:
        local.embed(["warm"])
        for _ in range(2):
            runs["in process"].append(timed(local, groups, None))
            runs["server"].append(timed(remote, groups, server.pid))
    finally:
        server.terminate()
        server.wait(timeout=30)
    diff = float(np.abs(runs["in process"][0]["vectors"] - runs["server"][0]["vectors"]).max())
    rows = [summary(name, found, texts) for name, found in runs.items()]
    results = {
        "command": command_line(),
        "machine": machine(),
        "documents": args.documents,
        "chunks": len(chunks),
        "rows": rows,
        "max_vector_difference": diff,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    write_results(args.out, results, markdown(results))


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "# Passage embedding in process against an OpenAI-compatible server of the same model",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']}; load average {r['load_average']} (1, 5, 15 min) at the end. The first "
        f"{r['documents']} documents of the corpus: {r['chunks']} chunks and their sentences, embedded in the chunk "
        "store's groups, each way twice (taking turns), means shown. The server runs the same model in another "
        "process on loopback (`bench/embedding_server.py`), so both share this machine's cores.",
        "",
        "| way | texts | wall s | texts/s | ingest-process CPU ms per text | server CPU ms per text |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['way']} | {row['texts']} | {row['wall_s']} | {row['texts_per_s']} "
            f"| {row['client_cpu_ms_per_text']} | {row['server_cpu_ms_per_text'] or '-'} |"
        )
    lines += [
        "",
        f"Largest difference of one vector coordinate between the two ways: {r['max_vector_difference']:.4f} (the "
        "client sends 64 texts a request, the chunk store's call holds more: the int8 model's ranges are taken per "
        "run).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
