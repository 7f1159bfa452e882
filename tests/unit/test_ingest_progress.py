"""Extraction progress: an LLM extractor gets its chunks a few at a time and the bar shows calls, tokens, failures."""

from __future__ import annotations

import json
from pathlib import Path

from support.openai_stub import OpenAIStub, server_error, text
from tqdm import tqdm

from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.extraction_cache import CachedExtractor
from graphwire.ingest.extractors.llm import LLMExtractor
from graphwire.ingest.progress import ExtractionProgress, slice_size
from graphwire.ingest.report import IngestReport
from graphwire.schema.model import load_schema

REPLY = {"entities": [{"name": "Ada Park", "label": "Person"}], "relationships": []}


def _chunks(n: int) -> list[Chunk]:
    return [Chunk(id=f"c{i}", document_id="d", index=i, text=f"Ada Park spoke {i}.", title="t") for i in range(n)]


def test_an_llm_extractor_is_fed_by_its_concurrency_and_the_bar_counts_each_slice(
    openai_stub: OpenAIStub, llm_settings: Settings, tmp_path: Path
) -> None:
    openai_stub.script(*[text(json.dumps(REPLY))] * 4)
    openai_stub.fallback = server_error(400)  # the fifth chunk fails at once
    extractor = LLMExtractor(llm_settings, load_schema())
    assert slice_size(extractor) == llm_settings.llm_concurrency == 2
    updates: list[int] = []
    with tqdm(total=5, disable=True) as bar:
        bar.update = updates.append  # type: ignore[method-assign]
        progress = ExtractionProgress(bar, extractor)
        outcomes = progress.extract(_chunks(5))
    assert len(outcomes) == 5 and updates == [2, 2, 1]
    assert progress.postfix() == {"calls": 4, "tokens": extractor.usage.total_tokens, "retries": 0, "failed": 1}


def test_a_cached_llm_extractor_is_sliced_too_and_an_offline_one_is_not(llm_settings: Settings, tmp_path: Path) -> None:
    cached = CachedExtractor(LLMExtractor(llm_settings, load_schema()), tmp_path / "cache.sqlite")
    assert slice_size(cached) == 2

    class Offline:
        name, version = "offline", "1"

    assert slice_size(Offline()) is None  # type: ignore[arg-type]


def test_the_summary_counts_what_the_llm_extractor_dropped_retried_and_repaired() -> None:
    from graphwire.cli.ingest_cmd import console, print_summary

    report = IngestReport(
        chunks_written=22,
        elapsed_s=1712.4,
        pruned={"pattern not allowed": 1},
        documents_reextracted=2,
        extraction={"retried calls": 3, "repaired replies": 1, "entities dropped: name not in the chunk": 4},
    )
    width, console.width = console.width, 200  # one line per row, however narrow the test's terminal
    try:
        with console.capture() as captured:
            print_summary(report)
    finally:
        console.width = width
    out = " ".join(captured.get().split())
    assert "pruned (off-schema; for the LLM also ungrounded) │ 5" in out  # 1 by the pruner + 4 by the extractor
    assert "LLM extractor: retried calls │ 3" in out and "LLM extractor: repaired replies │ 1" in out
    assert "re-extracted (another extractor wrote them) │ 2" in out
    assert "1712.4 s (77.8 s/chunk)" in out  # not "0 chunks/s"
