"""Passage vectors computed ahead of the write, and an embedder that reads them (`CachedEmbedder`).

A distributed ingest (ingest/distributed.py) embeds chunks and their sentences on many workers; the one writer then
runs the normal ingest with `CachedEmbedder` in front of the configured embedder, so every vector it writes is one a
worker computed, and a text no worker embedded is embedded as usual. Rows are keyed by the text's sha256 and the
model id, so a vector is never read into another model's space.

Only passages are cached (`embed`): questions are embedded fresh (`embed_query`, `embed_queries`).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from graphwire.core.clients.embeddings import Embedder, Vectors
from graphwire.core.stores.sqlite_file import open_shared

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    text_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (text_hash, model)
);
"""
LOOKUP_BATCH = 500  # text hashes per SELECT (SQLite's host-parameter limit is far above)


def text_hash(text: str) -> str:
    """The sha256 of a text: the key of its cached vector (and of its cached extraction)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """One SQLite file of float32 vectors keyed by (text sha256, model id); safe to share between threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = open_shared(path, _SCHEMA)

    def put(self, model: str, hashes: Sequence[str], vectors: Vectors) -> None:
        rows = [(h, model, np.asarray(v, dtype=np.float32).tobytes()) for h, v in zip(hashes, vectors, strict=True)]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
            self._db.commit()

    def get(self, model: str, hashes: Sequence[str]) -> dict[str, Vectors]:
        """The cached vectors of these hashes (absent ones are missing from the result)."""
        found: dict[str, Vectors] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for start in range(0, len(unique), LOOKUP_BATCH):
                part = unique[start : start + LOOKUP_BATCH]
                marks = ",".join("?" * len(part))
                query = f"SELECT text_hash, vector FROM vectors WHERE model=? AND text_hash IN ({marks})"  # noqa: S608
                for key, blob in self._db.execute(query, (model, *part)):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedEmbedder:
    """`inner` with its passage vectors read from `cache` where present; the rest embedded by `inner` (in one call,
    so a cold cache costs what `inner` alone does). Misses are not written back: the cache holds what a job put."""

    def __init__(self, inner: Embedder, cache: VectorCache) -> None:
        self.inner = inner
        self.cache = cache
        self.backend = inner.backend
        self.model_id = inner.model_id
        self.hits = 0
        self.misses = 0

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return self.inner.embed([])
        hashes = [text_hash(text) for text in texts]
        found = self.cache.get(self.model_id, hashes)
        missing = [i for i, h in enumerate(hashes) if h not in found]
        fresh = self.inner.embed([texts[i] for i in missing]) if missing else None
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for i, key in enumerate(hashes):
            if key in found:
                out[i] = found[key]
        if fresh is not None:
            out[missing] = fresh
        return out

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_queries(texts)
