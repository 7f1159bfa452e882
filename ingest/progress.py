"""Extraction progress during an ingest run: a tqdm bar over chunks (rate and ETA), with the LLM's calls, tokens,
retries and failures so far when the extractor counts them.

An LLM extractor is slow per chunk, so the pipeline hands it its chunks a few at a time (`slice_size`: its
concurrency) and advances the bar after each slice; the offline extractor gets each batch whole (spaCy's worker
processes want big batches) and the bar moves per batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from graphwire.core.documents import Chunk
from graphwire.ingest.extractors.base import ExtractionFailure, Extractor
from graphwire.ingest.models import Extraction


def counted_parts(extractor: Extractor) -> list[Any]:
    """The extractor and, for a cache, the extractor it wraps: where usage and stats live."""
    return [c for c in (extractor, getattr(extractor, "inner", None)) if c is not None]


def slice_size(extractor: Extractor) -> int | None:
    """Chunks per extract call: an LLM extractor's concurrency (so progress moves per chunk or so), else None."""
    for part in counted_parts(extractor):
        settings = getattr(part, "settings", None)
        if settings is not None and getattr(part, "usage", None) is not None:
            return max(1, int(settings.llm_concurrency))
    return None


class ExtractionProgress:
    def __init__(self, bar: tqdm[Any], extractor: Extractor) -> None:
        self.bar = bar
        self.extractor = extractor
        self.failures = 0

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        size = slice_size(self.extractor) or max(1, len(chunks))
        outcomes: list[Extraction | ExtractionFailure] = []
        for start in range(0, len(chunks), size):
            part = self.extractor.extract(chunks[start : start + size])
            outcomes.extend(part)
            self.failures += sum(1 for o in part if isinstance(o, ExtractionFailure))
            self.bar.set_postfix(self.postfix(), refresh=False)
            self.bar.update(len(part))
        return outcomes

    def postfix(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part in counted_parts(self.extractor):
            usage = getattr(part, "usage", None)
            if usage is not None and hasattr(usage, "calls"):
                out["calls"], out["tokens"] = usage.calls, usage.total_tokens
            stats = getattr(part, "stats", None)
            if stats is not None and hasattr(stats, "retries"):
                out["retries"] = stats.retries
        out["failed"] = self.failures
        return out
