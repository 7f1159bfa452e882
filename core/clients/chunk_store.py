"""The chunk store: every chunk's text, metadata and embedding in one Chroma collection.

Ingestion writes it beside the graph; the vector, lexical and hybrid retrievers read it. The collection carries a
registered graphwire embedding function (Chroma's default one downloads a model and fails offline) and a revision
marker that changes on every write, so in-memory indexes built from the store know when to rebuild.

Another process may write the same local folder (`graphwire ingest` while the API serves). A store that finds the
revision changed by someone else reopens its client (`core.chroma.reopened`) before it reads again: checked by
`revision()` and, at most every `SYNC_EVERY_S`, before a query; a read that fails with Chroma's InternalError in
between (the folder changed again) reopens and retries, a few times.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from typing import Any, TypeVar, cast

from chromadb import Documents, EmbeddingFunction, Embeddings
from chromadb.errors import ChromaError, InternalError, NotFoundError
from chromadb.utils.embedding_functions import register_embedding_function

from graphwire.core.clients.chroma import open_client, reopened
from graphwire.core.clients.embeddings import (
    MINILM_MODEL_ID,
    Embedder,
    EmbeddingError,
    embedder_from_settings,
    offline_embedder_for,
)
from graphwire.core.clients.openai_embedder import OpenAIEmbedder
from graphwire.core.clients.sentence_vectors import SUFFIX, SentenceCollection, SentenceRows, chunk_sentences
from graphwire.core.documents import Chunk
from graphwire.core.settings import EmbeddingBackend, Settings, get_settings

EF_NAME = "graphwire-embedder"
EMBEDDING_KEY = "graphwire_embedding"  # collection metadata: the vector space the collection was built in
REVISION_KEY = "graphwire_revision"  # collection metadata: changes on every write
WRITE_BATCH = 256
READ_PAGE = 1000
SYNC_EVERY_S = 1.0  # how often a query first checks whether another process wrote the store
READ_ATTEMPTS = 6  # a read that keeps meeting another process's fresh writes gives up after this many
R = TypeVar("R")


@register_embedding_function
class GraphwireEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma's view of a graphwire embedder; its persisted config names the model, never a path or a key."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.embedder.embed(list(input)))

    def embed_query(self, input: Documents) -> Embeddings:  # Chroma's `query_texts`: the model's query side
        return list(self.embedder.embed_queries(list(input)))

    @staticmethod
    def name() -> str:
        return EF_NAME

    def default_space(self) -> Any:
        return "cosine"

    def supported_spaces(self) -> Any:
        return ["cosine"]

    def get_config(self) -> dict[str, Any]:
        config = {"backend": self.embedder.backend, "model": self.embedder.model_id}
        base_url = getattr(self.embedder, "base_url", None)
        if base_url:
            config["base_url"] = base_url
        return config

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> GraphwireEmbeddingFunction:
        if config.get("backend") == EmbeddingBackend.OFFLINE.value:
            return GraphwireEmbeddingFunction(offline_embedder_for(str(config.get("model", MINILM_MODEL_ID))))
        settings = get_settings()
        secret = settings.embedding_api_key or settings.llm_api_key
        embedder = OpenAIEmbedder(
            model=str(config["model"]),
            base_url=config.get("base_url"),
            api_key=secret.get_secret_value() if secret else None,
        )
        return GraphwireEmbeddingFunction(embedder)


def _metadata(chunk: Chunk) -> dict[str, str | int]:
    meta: dict[str, str | int] = {"document_id": chunk.document_id, "title": chunk.title, "index": chunk.index}
    if chunk.source:
        meta["source"] = chunk.source
    if chunk.published_at:
        meta["published_at"] = chunk.published_at.isoformat()
    if chunk.locator:
        meta["locator"] = chunk.locator
    return meta


def _chunk(chunk_id: str, text: str, meta: dict[str, Any]) -> Chunk:
    published = meta.get("published_at")
    return Chunk(
        id=chunk_id,
        document_id=str(meta["document_id"]),
        index=int(meta.get("index", 0)),
        text=text,
        title=str(meta.get("title", "")),
        source=meta.get("source") or None,
        published_at=date.fromisoformat(published) if published else None,
        locator=meta.get("locator") or None,
    )


def drop_collections(client: Any, collection_name: str) -> int:
    """Deletes a chunk collection and its sentence collection; returns how many chunks there were."""
    counts = {}
    for name in (collection_name + SUFFIX, collection_name):
        try:
            counts[name] = int(client.get_collection(name).count())
        except (NotFoundError, ValueError):
            continue
        client.delete_collection(name)
    return counts.get(collection_name, 0)


def embedding_groups(chunks: Sequence[Chunk], *, sentences: bool) -> Iterator[tuple[Sequence[Chunk], SentenceRows]]:
    """The groups `ChunkStore.upsert` embeds in one call each: WRITE_BATCH chunks, then their sentences. The int8
    model's activation ranges are taken per call, so whoever embeds ahead of the write (ingest/distributed.py) uses
    the same groups and gets the same vectors."""
    for start in range(0, len(chunks), WRITE_BATCH):
        batch = chunks[start : start + WRITE_BATCH]
        yield batch, SentenceRows.of(batch) if sentences else SentenceRows([], [], [])


class ChunkStore:
    def __init__(self, client: Any, collection_name: str, embedder: Embedder, *, sentences: bool = True) -> None:
        """`sentences`: write and read every chunk's sentence vectors too (`SENTENCE_VECTORS`)."""
        self.client = client
        self.collection_name = collection_name
        self.embedder = embedder
        self._ef = GraphwireEmbeddingFunction(embedder)
        self._reopen_lock = threading.Lock()
        self.collection = self._open_or_create()
        self.sentences = SentenceCollection(self._sentence_collection) if sentences else None
        self._seen_revision = str((self.collection.metadata or {}).get(REVISION_KEY, ""))
        self._synced_at = time.monotonic()
        self.reopens = 0  # how often another process's writes made this store reopen its client
        built_with = (self.collection.metadata or {}).get(EMBEDDING_KEY)
        if built_with != embedder.model_id:
            raise EmbeddingError(
                f"collection {collection_name!r} holds vectors from {built_with!r}, but the configured embedder is "
                f"{embedder.model_id!r}; re-ingest into a new CHROMA_COLLECTION or switch EMBEDDING_BACKEND / "
                "OFFLINE_EMBEDDING_MODEL back"
            )

    def _open_or_create(self, name: str | None = None) -> Any:
        name = name or self.collection_name
        try:
            return self.client.get_collection(name, embedding_function=self._ef)
        except NotFoundError:
            pass
        try:
            return self.client.create_collection(
                name,
                embedding_function=self._ef,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={EMBEDDING_KEY: self.embedder.model_id, REVISION_KEY: uuid.uuid4().hex},
            )
        except ChromaError as exc:
            # Another process or thread created it in between: UniqueConstraintError, InternalError locally, a plain
            # ChromaError "already exists" from a Chroma server (the API's warm-up and a job open it at once).
            try:
                return self.client.get_collection(name, embedding_function=self._ef)
            except NotFoundError:
                raise exc from None

    def _sentence_collection(self) -> Any:
        return self._open_or_create(self.collection_name + SUFFIX)

    @classmethod
    def from_settings(cls, settings: Settings, embedder: Embedder | None = None) -> ChunkStore:
        """`embedder`: in place of the configured one (a `CachedEmbedder` in front of it, say)."""
        return cls(
            open_client(settings),
            settings.chroma_collection,
            embedder or embedder_from_settings(settings),
            sentences=settings.sentence_vectors,
        )

    # writes -----------------------------------------------------------------------------------------------------

    def upsert(self, chunks: Sequence[Chunk]) -> int:
        """Embeds and writes the chunks (same id = replaced), each one's sentences first; returns how many chunks
        were written."""
        for batch, rows in embedding_groups(chunks, sentences=self.sentences is not None):
            texts = [chunk.text for chunk in batch]
            vectors = self.embedder.embed([*texts, *rows.texts])  # one pass over the model for both
            if self.sentences is not None:
                self.sentences.replace([chunk.id for chunk in batch], rows, vectors[len(texts) :])
            self.collection.upsert(
                ids=[chunk.id for chunk in batch],
                embeddings=vectors[: len(texts)],
                documents=texts,
                metadatas=[_metadata(chunk) for chunk in batch],
            )
        if chunks:
            self._bump_revision()
        return len(chunks)

    def chunks_without_sentences(self) -> list[Chunk]:
        """The stored chunks that have sentences to embed but no sentence vectors (a store built before them, with
        `SENTENCE_VECTORS` off, or left by an interrupted write); none when sentence vectors are off."""
        if self.sentences is None:
            return []
        done = self.sentences.chunks_with_sentences()
        return [chunk for chunk in self.get_all() if chunk.id not in done and chunk_sentences(chunk)]

    def fill_sentences(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Writes the sentence vectors of `chunks_without_sentences`; returns how many chunks were filled.
        `progress` gets each batch's size and the number of chunks to fill."""
        todo = self.chunks_without_sentences()
        for start in range(0, len(todo), WRITE_BATCH):
            rows = SentenceRows.of(todo[start : start + WRITE_BATCH])
            self.sentences.write(rows, self.embedder.embed(rows.texts))  # type: ignore[union-attr]
            if progress is not None:
                progress(len(todo[start : start + WRITE_BATCH]), len(todo))
        if todo:
            self._bump_revision()
        return len(todo)

    def delete_document(self, document_id: str) -> int:
        """Removes every chunk of one document; returns how many there were."""
        found = self.collection.get(where={"document_id": document_id}, include=[])
        return self.delete_ids(list(found["ids"]))

    def delete_ids(self, ids: Sequence[str]) -> int:
        """Removes the chunks with these ids (unknown ids are ignored); returns how many ids were given."""
        for start in range(0, len(ids), WRITE_BATCH * 4):
            batch = list(ids[start : start + WRITE_BATCH * 4])
            if self.sentences is not None:
                self.sentences.delete_chunks(batch)
            self.collection.delete(ids=batch)
        if ids:
            self._bump_revision()
        return len(ids)

    def _bump_revision(self) -> None:
        metadata = dict(self.collection.metadata or {})
        metadata[REVISION_KEY] = revision = uuid.uuid4().hex
        self.collection.modify(metadata=metadata)
        self._seen_revision = revision

    # another process's writes -----------------------------------------------------------------------------------

    def _reopen(self) -> None:
        with self._reopen_lock:
            self.client = reopened(self.client)
            self.collection = self.client.get_collection(self.collection_name, embedding_function=self._ef)
            self.reopens += 1

    def sync(self) -> None:
        """Reopen when another process wrote the store since this one last looked (at most every SYNC_EVERY_S)."""
        if time.monotonic() - self._synced_at >= SYNC_EVERY_S:
            self.revision()

    def _read(self, call: Callable[[], R]) -> R:
        """A read through the current collection, retried on a fresh client while the folder changes under it (a
        writer in another process commits between our reopen and our read)."""
        for attempt in range(READ_ATTEMPTS - 1):
            try:
                return call()
            except InternalError:
                time.sleep(0.05 * attempt)
                self._reopen()
        return call()

    # reads ------------------------------------------------------------------------------------------------------

    def revision(self) -> str:
        """A marker that changes whenever any process writes to the collection (reopens when it was another one)."""
        current = self.client.get_collection(self.collection_name, embedding_function=self._ef)
        revision = str((current.metadata or {}).get(REVISION_KEY, ""))
        self._synced_at = time.monotonic()
        if revision != self._seen_revision:
            self._reopen()
            self._seen_revision = revision
        return revision

    def count(self) -> int:
        return int(self.collection.count())

    def ids(self) -> list[str]:
        """Every chunk id in the store."""
        out: list[str] = []
        while page := self._read(lambda: self.collection.get(limit=READ_PAGE * 10, offset=len(out), include=[])):
            if not page["ids"]:
                break
            out.extend(page["ids"])
        return out

    def missing(self, chunk_ids: Sequence[str]) -> list[str]:
        """Those of the ids the store has no chunk for, in the order given."""
        present: set[str] = set()
        for start in range(0, len(chunk_ids), READ_PAGE):
            batch = list(dict.fromkeys(chunk_ids[start : start + READ_PAGE]))
            present.update(self._read(lambda: self.collection.get(ids=batch, include=[]))["ids"])  # noqa: B023
        return [chunk_id for chunk_id in chunk_ids if chunk_id not in present]

    def query(self, text: str, k: int, chunk_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The k nearest chunks by cosine similarity (best first), optionally only among `chunk_ids`."""
        return self.query_vector(self.embedder.embed_query(text), k, chunk_ids)

    def query_vector(self, vector: Any, k: int, chunk_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        self.sync()
        if chunk_ids is not None:  # Chroma fails the whole query on an unknown id: keep the stored ones
            wanted = list(dict.fromkeys(chunk_ids))
            chunk_ids = list(self._read(lambda: self.collection.get(ids=wanted, include=[]))["ids"])
        if k <= 0 or chunk_ids == []:
            return []
        # Chroma returns fewer than n_results when the collection holds fewer: no count() (a read) per query
        n_results = k if chunk_ids is None else min(k, len(chunk_ids))
        found = self._read(
            lambda: self.collection.query(
                query_embeddings=[vector], n_results=n_results, ids=chunk_ids, include=["distances"]
            )
        )
        ids, distances = found["ids"][0], cast(list[list[float]], found["distances"])[0]
        return [(chunk_id, 1.0 - float(distance)) for chunk_id, distance in zip(ids, distances, strict=True)]

    def get(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order asked (unknown ids are left out)."""
        if not chunk_ids:
            return []
        found = self._read(lambda: self.collection.get(ids=list(chunk_ids), include=["documents", "metadatas"]))
        by_id = {
            chunk_id: _chunk(chunk_id, text or "", dict(meta or {}))
            for chunk_id, text, meta in zip(found["ids"], found["documents"], found["metadatas"], strict=True)
        }
        return [by_id[chunk_id] for chunk_id in chunk_ids if chunk_id in by_id]

    def iter_all(self) -> Iterator[Chunk]:
        offset = 0
        while True:
            page = self._read(
                lambda: self.collection.get(limit=READ_PAGE, offset=offset, include=["documents", "metadatas"])  # noqa: B023
            )
            if not page["ids"]:
                return
            for chunk_id, text, meta in zip(page["ids"], page["documents"], page["metadatas"], strict=True):
                yield _chunk(chunk_id, text or "", dict(meta or {}))
            offset += len(page["ids"])

    def get_all(self) -> list[Chunk]:
        """Every chunk, ordered by document id then position (a stable order for index building)."""
        return sorted(self.iter_all(), key=lambda chunk: (chunk.document_id, chunk.index, chunk.id))

    def sentence_vectors(self, positions: dict[str, int]) -> tuple[Any, Any] | None:
        """The sentence vectors of the chunks in `positions` (chunk id -> its row in `get_all_with_vectors`): the
        owning row of each sentence, ascending, and the vectors; None when sentence vectors are off."""
        if self.sentences is None:
            return None
        return self._read(lambda: self.sentences.read(positions, self.embedder.dimension))  # type: ignore[union-attr]

    def get_all_with_vectors(self) -> tuple[list[Chunk], Any]:
        """Every chunk (same order as `get_all`) and its stored embedding as one float32 matrix (rows match)."""
        import numpy as np

        rows = self._read(self._rows_with_vectors)  # a read the folder changed under starts again
        rows.sort(key=lambda row: (row[0].document_id, row[0].index, row[0].id))
        dimension = self.embedder.dimension if not rows else len(rows[0][1])
        matrix = np.asarray([vector for _, vector in rows], dtype=np.float32).reshape(len(rows), dimension)
        return [chunk for chunk, _ in rows], matrix

    def _rows_with_vectors(self) -> list[tuple[Chunk, Any]]:
        rows: list[tuple[Chunk, Any]] = []
        collection = self.collection
        while True:
            page = collection.get(limit=READ_PAGE, offset=len(rows), include=["documents", "metadatas", "embeddings"])
            if not len(page["ids"]):
                return rows
            for chunk_id, text, meta, vector in zip(
                page["ids"], page["documents"], page["metadatas"], page["embeddings"], strict=True
            ):
                rows.append((_chunk(chunk_id, text or "", dict(meta or {})), vector))
