"""The one interface both extractors (offline and LLM) implement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from graphwire.core.documents import Chunk
from graphwire.ingest.models import Extraction


class ExtractionFailure(Exception):
    """One chunk could not be extracted (after retries); the pipeline records it for --retry-failed."""

    def __init__(self, chunk_id: str, reason: str) -> None:
        super().__init__(f"chunk {chunk_id}: {reason}")
        self.chunk_id = chunk_id
        self.reason = reason

    def __reduce__(self) -> tuple[type[ExtractionFailure], tuple[str, str]]:
        return (ExtractionFailure, (self.chunk_id, self.reason))  # crosses process boundaries (extraction workers)


class Extractor(Protocol):
    name: str  # "offline" or "llm:<model>"
    version: str  # bump when the output for the same input changes; part of the extraction cache key

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        """One result per chunk, in order; a failed chunk yields an ExtractionFailure instead of raising."""
        ...
