"""Sentence vectors beside the chunk store: every sentence of every chunk embedded on its own, in a second collection.

A question's dense score for a chunk is the mean of its similarity to the whole chunk and to the chunk's closest
sentence (retrieval/flat/index.py `SentenceIndex`): a 1,000-character news chunk whose one sentence states what the
question asks is no longer drowned by the rest of its text. Evidence: bench/sentence_vectors.md.

The rows are keyed `<chunk id>#<n>` with the chunk id in their metadata; the chunk store writes a chunk's sentences
before the chunk itself and deletes them before it, so a chunk that is present has its sentences (an interrupted write
is repeated whole by the next ingest; `graphwire db check` lists a chunk without them and `--repair` fills it) and a
chunk without any scores as before, by its own vector.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from graphwire.core.documents import Chunk, strip_prefix
from graphwire.core.sentences import sentences

SUFFIX = "_sentences"  # the sentence collection is named after the chunk collection
MIN_CHARS = 20  # shorter pieces (bylines, "AP", list bullets) say nothing a question could match
CHUNK_KEY = "chunk_id"
READ_PAGE = 5000


def chunk_sentences(chunk: Chunk) -> list[str]:
    """The sentences of a chunk's text, without its `[Source | Title | Published]` prefix, that are long enough."""
    return [text for text in sentences(strip_prefix(chunk.text)) if len(text) >= MIN_CHARS]


@dataclass(frozen=True)
class SentenceRows:
    """The sentence rows of some chunks, ready to embed and write."""

    ids: list[str]
    texts: list[str]
    chunk_ids: list[str]

    @classmethod
    def of(cls, chunks: Sequence[Chunk]) -> SentenceRows:
        ids, texts, owners = [], [], []
        for chunk in chunks:
            for n, text in enumerate(chunk_sentences(chunk)):
                ids.append(f"{chunk.id}#{n}")
                texts.append(text)
                owners.append(chunk.id)
        return cls(ids, texts, owners)

    def metadatas(self) -> list[dict[str, str | int | float | bool | None]]:
        return [{CHUNK_KEY: chunk_id} for chunk_id in self.chunk_ids]


class SentenceCollection:
    """The sentence rows of one chunk collection (`collection()` returns the current Chroma collection object)."""

    def __init__(self, collection: Callable[[], Any]) -> None:
        self._collection = collection

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            self._collection().delete(where={CHUNK_KEY: {"$in": list(chunk_ids)}})

    def write(self, rows: SentenceRows, vectors: npt.NDArray[np.float32]) -> None:
        if rows.ids:
            self._collection().upsert(ids=rows.ids, embeddings=vectors, metadatas=rows.metadatas())

    def replace(self, chunk_ids: Sequence[str], rows: SentenceRows, vectors: npt.NDArray[np.float32]) -> None:
        """These chunks' sentences become `rows`: written first, then the rows they no longer have deleted, so an
        interruption never leaves a stored chunk without sentences."""
        self.write(rows, vectors)
        if chunk_ids:
            found = self._collection().get(where={CHUNK_KEY: {"$in": list(chunk_ids)}}, include=[])
            stale = sorted(set(found["ids"]) - set(rows.ids))
            if stale:
                self._collection().delete(ids=stale)

    def chunks_with_sentences(self) -> set[str]:
        return {str(meta[CHUNK_KEY]) for meta, _ in self._pages(include=["metadatas"])}

    def read(self, positions: dict[str, int], dimension: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Every stored sentence vector of the chunks in `positions` (chunk id -> row of the chunk matrix): the owning
        chunk's row of each sentence, ascending, and the vectors in the same order."""
        owners: list[int] = []
        vectors: list[Any] = []
        for meta, vector in self._pages(include=["metadatas", "embeddings"]):
            position = positions.get(str(meta[CHUNK_KEY]))
            if position is not None:  # a sentence whose chunk is gone (an interrupted delete) is left out
                owners.append(position)
                vectors.append(vector)
        order = np.argsort(np.asarray(owners, dtype=np.int64), kind="stable")
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), dimension)
        return np.asarray(owners, dtype=np.int64)[order], matrix[order]

    def _pages(self, include: list[str]) -> list[tuple[dict[str, Any], Any]]:
        collection = self._collection()
        rows: list[tuple[dict[str, Any], Any]] = []
        while True:
            page = collection.get(limit=READ_PAGE, offset=len(rows), include=include)
            if not len(page["ids"]):
                return rows
            vectors = page["embeddings"] if "embeddings" in include else [None] * len(page["ids"])
            rows.extend(zip([dict(m or {}) for m in page["metadatas"]], vectors, strict=True))
