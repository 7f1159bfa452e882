"""A sqlite-backed extraction cache and failure log, and `CachedExtractor`, which wraps any `Extractor` with them.

Usage (the ingestion pipeline)::

    extractor = CachedExtractor(LLMExtractor(settings, schema), settings.extraction_cache_path,
                                schema_fingerprint=schema.fingerprint)
    results = extractor.extract(chunks)          # hits cost zero calls; misses go to the inner extractor
    extractor.stats                              # CacheStats(hits=..., misses=..., failures=...)
    # --retry-failed:
    ids = extractor.cache.failed_chunk_ids()     # chunks whose last extraction failed
    extractor.extract([c for c in chunks if c.id in ids])   # a success clears the failure record
    extractor.cache.clear_failure(chunk_id)      # forget one record by hand

Cache key: (sha256 of the chunk text, extractor name e.g. ``llm:gpt-4o-mini``, schema fingerprint, extractor version).
The extractor version is the prompt version for the LLM extractor, so changing the model, the schema file or the
prompt invalidates exactly the entries it should. A hit returns the stored `Extraction` with `chunk_id` set to the
chunk asked for (the same text in two chunks is extracted once).

Failures table: chunk id (primary key), document id, reason, attempts (how many runs failed on it), time of the last
failure (UTC ISO). A successful extraction of that chunk deletes its row. Failures are never cached as results.

The cache is safe to share between threads (one connection, a lock, WAL journal) and between runs (a file).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from graphwire.core.clients.vector_cache import text_hash
from graphwire.core.documents import Chunk
from graphwire.core.stores.sqlite_file import open_shared
from graphwire.ingest.extractors.base import ExtractionFailure, Extractor
from graphwire.ingest.models import Extraction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS extractions (
    chunk_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    schema_fingerprint TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    extraction TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (chunk_hash, model, schema_fingerprint, prompt_version)
);
CREATE TABLE IF NOT EXISTS failures (
    chunk_id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    failed_at TEXT NOT NULL
);
"""


ExtractionRow = tuple[str, str, str, str, str]  # chunk hash, model, schema fingerprint, prompt version, JSON


class CacheKey(BaseModel, frozen=True):
    chunk_hash: str
    model: str
    schema_fingerprint: str
    prompt_version: str


class FailureRecord(BaseModel):
    chunk_id: str
    document_id: str
    reason: str
    attempts: int
    failed_at: datetime


class CacheStats(BaseModel):
    hits: int = 0
    misses: int = 0
    failures: int = 0


def chunk_hash(chunk: Chunk) -> str:
    return text_hash(chunk.text)


def _now() -> str:
    return datetime.now(UTC).isoformat()


class ExtractionCache:
    """The two tables behind `CachedExtractor`; usable on its own (e.g. by a `graphwire ingest --retry-failed`)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = open_shared(path, _SCHEMA)

    def get(self, key: CacheKey) -> Extraction | None:
        with self._lock:
            row = self._db.execute(
                "SELECT extraction FROM extractions WHERE chunk_hash=? AND model=? AND schema_fingerprint=?"
                " AND prompt_version=?",
                (key.chunk_hash, key.model, key.schema_fingerprint, key.prompt_version),
            ).fetchone()
        return Extraction.model_validate_json(row[0]) if row else None

    def put(self, key: CacheKey, extraction: Extraction) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO extractions VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key.chunk_hash,
                    key.model,
                    key.schema_fingerprint,
                    key.prompt_version,
                    extraction.model_dump_json(),
                    _now(),
                ),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM extractions").fetchone()[0])

    def export(self) -> list[ExtractionRow]:
        """Every cached extraction (its key's columns and its JSON), to merge into another cache (`merge`)."""
        with self._lock:
            return list(
                self._db.execute(
                    "SELECT chunk_hash, model, schema_fingerprint, prompt_version, extraction FROM extractions"
                )
            )

    def merge(self, rows: Sequence[ExtractionRow]) -> None:
        """Add the rows another cache exported (a row with the same key is replaced: its content is the same)."""
        now = _now()
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO extractions VALUES (?, ?, ?, ?, ?, ?)", [(*row, now) for row in rows]
            )
            self._db.commit()

    def record_failure(self, chunk_id: str, document_id: str, reason: str, attempts: int = 1) -> None:
        """Add `attempts` to the chunk's failure count and keep the latest reason."""
        with self._lock:
            self._db.execute(
                "INSERT INTO failures VALUES (?, ?, ?, ?, ?) ON CONFLICT(chunk_id) DO UPDATE SET"
                " document_id=excluded.document_id, reason=excluded.reason,"
                " attempts=failures.attempts + excluded.attempts, failed_at=excluded.failed_at",
                (chunk_id, document_id, reason, attempts, _now()),
            )
            self._db.commit()

    def failures(self) -> list[FailureRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT chunk_id, document_id, reason, attempts, failed_at FROM failures ORDER BY failed_at"
            ).fetchall()
        return [
            FailureRecord(chunk_id=r[0], document_id=r[1], reason=r[2], attempts=r[3], failed_at=r[4]) for r in rows
        ]

    def failed_chunk_ids(self) -> set[str]:
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT chunk_id FROM failures")}

    def clear_failure(self, chunk_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM failures WHERE chunk_id=?", (chunk_id,))
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedExtractor:
    """An `Extractor` that answers from the cache when it can and records every failure of the inner extractor.

    `schema_fingerprint` defaults to the inner extractor's `schema_fingerprint` attribute when it has one (the LLM
    extractor does), else to "none"; pass the schema's fingerprint whenever the inner output depends on the schema.
    """

    def __init__(self, inner: Extractor, path: Path | str, *, schema_fingerprint: str | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.cache = ExtractionCache(path)
        self.schema_fingerprint = schema_fingerprint or str(getattr(inner, "schema_fingerprint", "none"))
        self.stats = CacheStats()

    def key_for(self, chunk: Chunk) -> CacheKey:
        return CacheKey(
            chunk_hash=chunk_hash(chunk),
            model=self.inner.name,
            schema_fingerprint=self.schema_fingerprint,
            prompt_version=self.inner.version,
        )

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        results: list[Extraction | ExtractionFailure | None] = []
        misses: list[tuple[int, Chunk]] = []
        for i, chunk in enumerate(chunks):
            hit = self.cache.get(self.key_for(chunk))
            if hit is None:
                misses.append((i, chunk))
                results.append(None)
            else:
                results.append(hit.model_copy(update={"chunk_id": chunk.id}))
        self.stats.hits += len(chunks) - len(misses)
        self.stats.misses += len(misses)
        if misses:
            fresh = self.inner.extract([chunk for _, chunk in misses])
            for (i, chunk), outcome in zip(misses, fresh, strict=True):
                self._store(chunk, outcome)
                results[i] = outcome
        return [r for r in results if r is not None]

    def _store(self, chunk: Chunk, outcome: Extraction | ExtractionFailure) -> None:
        if isinstance(outcome, ExtractionFailure):
            self.stats.failures += 1
            attempts = int(getattr(outcome, "attempts", 1))
            self.cache.record_failure(chunk.id, chunk.document_id, outcome.reason, attempts)
            return
        self.cache.put(self.key_for(chunk), outcome)
        self.cache.clear_failure(chunk.id)

    def close(self) -> None:
        self.cache.close()
