"""LLM extraction overhead without an LLM: LLMExtractor + CachedExtractor against the local OpenAI-compatible stub.

Measures (1) wall time for N chunks at several LLM_CONCURRENCY values when every reply takes LATENCY seconds (does
bounded concurrency overlap the waits?), (2) graphwire's own per-chunk overhead with zero latency (prompt, HTTP,
parsing, checks), and (3) a re-run served from the extraction cache (zero calls). Writes bench/llm_extract.md.

    .venv/bin/python bench/llm_extract.py --chunks 40 --latency 0.2
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.openai_stub import OpenAIStub, text  # noqa: E402

from graphwire.core.documents import Chunk  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.ingest.extraction_cache import CachedExtractor  # noqa: E402
from graphwire.ingest.extractors.llm import LLMExtractor  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402

REPLY = {
    "entities": [{"name": "Sam Altman", "label": "Person"}, {"name": "OpenAI", "label": "Organization"}],
    "relationships": [
        {"source": "Sam Altman", "type": "CEO_OF", "target": "OpenAI", "evidence": "Sam Altman, the CEO of OpenAI"}
    ],
}


def _chunks(n: int) -> list[Chunk]:
    body = "Sam Altman, the CEO of OpenAI, spoke on Tuesday about the company's plans. " * 12
    return [Chunk(id=f"c{i}", document_id=f"d{i}", index=0, text=f"{i}: {body}", title="t") for i in range(n)]


def _run(stub: OpenAIStub, chunks: list[Chunk], concurrency: int, latency: float, cache: Path) -> tuple[float, int]:
    stub.reset()
    stub.fallback = text(json.dumps(REPLY), delay_s=latency)
    settings = Settings(llm_base_url=stub.base_url, llm_model="stub-model", llm_concurrency=concurrency)
    extractor = CachedExtractor(LLMExtractor(settings, load_schema()), cache)
    started = time.perf_counter()
    results = extractor.extract(chunks)
    elapsed = time.perf_counter() - started
    assert all(not isinstance(r, Exception) for r in results)
    return elapsed, len(stub.chat_requests)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    chunks = _chunks(args.chunks)
    rows = []
    with OpenAIStub() as stub, tempfile.TemporaryDirectory() as tmp:
        for concurrency in (1, 4, 8):
            cache = Path(tmp) / f"c{concurrency}.sqlite"
            elapsed, calls = _run(stub, chunks, concurrency, args.latency, cache)
            rows.append((f"latency {args.latency:g} s, concurrency {concurrency}", elapsed, calls))
        elapsed, calls = _run(stub, chunks, 1, 0.0, Path(tmp) / "zero.sqlite")
        rows.append(("latency 0, concurrency 1 (graphwire overhead)", elapsed, calls))
        elapsed, calls = _run(stub, chunks, 1, 0.0, Path(tmp) / "zero.sqlite")
        rows.append(("re-run from the extraction cache", elapsed, calls))
    command = f".venv/bin/python bench/llm_extract.py --chunks {args.chunks} --latency {args.latency:g}"
    lines = [
        "# LLM extraction overhead (stub server, no real LLM)",
        "",
        f"Command: `{command}` ({args.chunks} chunks of ~940 characters; 2-core shared machine).",
        "",
        "The stub server runs in the same Python process, so the zero-latency row includes the stub's own work:",
        "it is an upper bound on graphwire's per-call overhead (HTTP, parsing, checks, the cache write).",
        "",
        "| run | wall s | chunks/s | ms/chunk | LLM calls |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, elapsed, calls in rows:
        lines.append(
            f"| {name} | {elapsed:.2f} | {len(chunks) / elapsed:.1f} | {1000 * elapsed / len(chunks):.1f} | {calls} |"
        )
    report = "\n".join(lines) + "\n"
    Path(__file__).with_suffix(".md").write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
