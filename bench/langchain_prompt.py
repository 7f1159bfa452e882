"""Prompt size of the two model-backed extractors on the same chunk: the built-in `LLMExtractor` (json_schema mode)
and the optional `LangChainExtractor` (LLMGraphTransformer over ChatOpenAI), against the real local model
(Qwen2.5-Coder-0.5B-Instruct Q4_K_M on llama.cpp, one thread). For each: the request body in bytes (messages and
reply schema, what a hosted API reads), prompt and completion tokens as the server counts them, seconds, and what the
checks kept. The chunk is the schema's sample (schema/news.sample.txt).

    .venv/bin/python -m bench.langchain_prompt
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._results import command_line, machine, write_results  # noqa: E402
from graphwire.core.documents import Chunk  # noqa: E402
from graphwire.core.servers.llm_model import MODEL_NAME, model_path  # noqa: E402
from graphwire.core.servers.llm_server import LocalLLMServer, ServerOptions  # noqa: E402
from graphwire.core.servers.neo4j_server import free_port  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.ingest.extractors.base import Extractor  # noqa: E402
from graphwire.ingest.extractors.langchain_graph import LangChainExtractor, chat_model  # noqa: E402
from graphwire.ingest.extractors.llm import LLMExtractor  # noqa: E402
from graphwire.ingest.llm_check import sample_path  # noqa: E402
from graphwire.ingest.models import Extraction  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402


def _run(extractor: Extractor, chunk: Chunk, body_bytes: int) -> dict[str, Any]:
    started = time.perf_counter()
    [result] = extractor.extract([chunk])
    seconds = time.perf_counter() - started
    usage = extractor.usage.snapshot()  # type: ignore[attr-defined]
    kept = (len(result.entities), len(result.relations)) if isinstance(result, Extraction) else (0, 0)
    return {"request_bytes": body_bytes, "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens, "seconds": round(seconds, 1), "entities": kept[0],
            "relationships": kept[1], "failed": not isinstance(result, Extraction)}  # fmt: skip


def main() -> None:
    base = Settings()
    schema = load_schema()
    text = sample_path(base).read_text(encoding="utf-8").strip()
    chunk = Chunk(id="sample", document_id="sample", index=0, text=text, title="sample")
    options = ServerOptions(model_path(base.local_llm_dir), free_port(), threads=1)
    with tempfile.TemporaryDirectory() as tmp, LocalLLMServer(options, log_path=Path(tmp) / "server.log") as server:
        settings = base.model_copy(update={"llm_base_url": server.base_url, "llm_model": MODEL_NAME,
                                           "llm_extraction_mode": "json_schema", "llm_max_retries": 0})  # fmt: skip
        builtin = LLMExtractor(settings, schema)
        request = {"messages": builtin.messages(text), **builtin.options(text).model_dump(exclude_none=True)}
        results = {"builtin": _run(builtin, chunk, len(json.dumps(request).encode()))}
        sent: list[int] = []
        client = httpx.Client(event_hooks={"request": [lambda r: sent.append(len(r.read()))]})
        extractor = LangChainExtractor(settings, schema, llm=chat_model(settings, http_client=client))
        results["langchain"] = _run(extractor, chunk, 0)
        results["langchain"]["request_bytes"] = sum(sent)
    ratio = results["langchain"]["prompt_tokens"] / max(1, results["builtin"]["prompt_tokens"])
    lines = [f"# Prompt size: built-in vs LangChain extractor\n\n`{command_line()}` on {machine()}, model "
             f"{MODEL_NAME}, sample chunk of {len(text)} characters.\n",
             "| extractor | request bytes | prompt tokens | completion tokens | seconds | entities | relationships |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    lines += [f"| {name} | {r['request_bytes']} | {r['prompt_tokens']} | {r['completion_tokens']} | {r['seconds']} "
              f"| {r['entities']} | {r['relationships']} |" for name, r in results.items()]  # fmt: skip
    lines.append(f"\nLangChain prompt tokens / built-in: {ratio:.1f}x")
    write_results(ROOT / "bench" / "langchain_prompt", {"machine": machine(), "results": results},
                  "\n".join(lines))  # fmt: skip
    print("\n".join(lines))


if __name__ == "__main__":
    main()
