"""The extraction cache: hits skip the inner extractor, keys separate model/schema/prompt, failures are recorded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from graphwire.core.documents import Chunk
from graphwire.ingest.extraction_cache import CachedExtractor, ExtractionCache
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.models import ExtractedEntity, Extraction


class CountingExtractor:
    """Extracts one Person per chunk, or fails on chunks whose text contains FAIL; counts the chunks it saw."""

    def __init__(self, name: str = "llm:test", version: str = "p1") -> None:
        self.name = name
        self.version = version
        self.seen: list[str] = []

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        out: list[Extraction | ExtractionFailure] = []
        for chunk in chunks:
            self.seen.append(chunk.id)
            if "FAIL" in chunk.text:
                out.append(ExtractionFailure(chunk.id, "boom"))
            else:
                person = ExtractedEntity(name=chunk.text.split()[0], label="Person")
                out.append(Extraction(chunk_id=chunk.id, entities=[person], extractor=self.name))
        return out


def _chunk(cid: str, text: str) -> Chunk:
    return Chunk(id=cid, document_id=f"doc-{cid}", index=0, text=text, title="t")


def test_second_run_is_all_hits(tmp_path: Path) -> None:
    chunks = [_chunk("a", "Alice met Bob"), _chunk("b", "Carol met Dan")]
    inner = CountingExtractor()
    first = CachedExtractor(inner, tmp_path / "c.sqlite", schema_fingerprint="s1").extract(chunks)
    rerun = CachedExtractor(inner, tmp_path / "c.sqlite", schema_fingerprint="s1")
    second = rerun.extract(chunks)
    assert inner.seen == ["a", "b"]
    assert second == first
    assert (rerun.stats.hits, rerun.stats.misses) == (2, 0)


def test_same_text_in_another_chunk_hits_with_its_own_id(tmp_path: Path) -> None:
    inner = CountingExtractor()
    cached = CachedExtractor(inner, tmp_path / "c.sqlite", schema_fingerprint="s1")
    cached.extract([_chunk("a", "Alice met Bob")])
    [hit] = cached.extract([_chunk("z", "Alice met Bob")])
    assert isinstance(hit, Extraction) and hit.chunk_id == "z"
    assert inner.seen == ["a"]


def test_model_schema_and_prompt_version_are_part_of_the_key(tmp_path: Path) -> None:
    chunk = [_chunk("a", "Alice met Bob")]
    path = tmp_path / "c.sqlite"
    CachedExtractor(CountingExtractor(), path, schema_fingerprint="s1").extract(chunk)
    for inner, fp in [
        (CountingExtractor(name="llm:other"), "s1"),
        (CountingExtractor(version="p2"), "s1"),
        (CountingExtractor(), "s2"),
    ]:
        CachedExtractor(inner, path, schema_fingerprint=fp).extract(chunk)
        assert inner.seen == ["a"], (inner.name, inner.version, fp)


def test_failures_are_recorded_counted_and_cleared_by_success(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    inner = CountingExtractor()
    cached = CachedExtractor(inner, path, schema_fingerprint="s1")
    results = cached.extract([_chunk("a", "Alice"), _chunk("b", "FAIL here")])
    assert isinstance(results[1], ExtractionFailure)
    cached.extract([_chunk("b", "FAIL here")])  # failures are not cached: asked again
    assert inner.seen == ["a", "b", "b"]
    [record] = cached.cache.failures()
    assert (record.chunk_id, record.document_id, record.reason, record.attempts) == ("b", "doc-b", "boom", 2)
    assert ExtractionCache(path).failed_chunk_ids() == {"b"}
    cached.extract([_chunk("b", "Bob is fine now")])
    assert cached.cache.failed_chunk_ids() == set()


def test_clear_failure(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "c.sqlite")
    cache.record_failure("x", "d", "timeout", attempts=3)
    assert cache.failures()[0].attempts == 3
    cache.clear_failure("x")
    assert cache.failed_chunk_ids() == set()


def test_exported_rows_merged_elsewhere_are_hits_there(tmp_path: Path) -> None:
    """What a distributed job's worker extracted (an in-memory cache) answers the writer's cache after a merge."""
    chunks = [_chunk("a", "Alice met Bob"), _chunk("b", "Carol met Dan")]
    worker = CachedExtractor(CountingExtractor(), ":memory:", schema_fingerprint="s1")
    extracted = worker.extract(chunks)
    rows = worker.cache.export()
    assert len(rows) == 2
    writer_cache = ExtractionCache(tmp_path / "c.sqlite")
    writer_cache.merge(rows)
    writer_cache.merge(rows)  # a partition done twice writes the same rows
    assert len(writer_cache) == 2
    writer_cache.close()
    inner = CountingExtractor()
    writer = CachedExtractor(inner, tmp_path / "c.sqlite", schema_fingerprint="s1")
    assert writer.extract(chunks) == extracted and inner.seen == []
    other_schema = CachedExtractor(inner, tmp_path / "c.sqlite", schema_fingerprint="s2")
    other_schema.extract(chunks)
    assert inner.seen == ["a", "b"]
