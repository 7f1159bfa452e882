"""The chunk store: every chunk's text, metadata and embedding in one Chroma collection.

Ingestion writes it beside the graph; the vector, lexical and hybrid retrievers read it. The collection carries a
registered graphwire embedding function (Chroma's default one downloads a model and fails offline) and a revision
marker that changes on every write, so in-memory indexes built from the store know when to rebuild.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from datetime import date
from typing import Any, cast

from chromadb import Documents, EmbeddingFunction, Embeddings
from chromadb.errors import InternalError, NotFoundError, UniqueConstraintError
from chromadb.utils.embedding_functions import register_embedding_function

from graphwire.core.chroma import open_client
from graphwire.core.documents import Chunk
from graphwire.core.embeddings import (
    MINILM_MODEL_ID,
    Embedder,
    EmbeddingError,
    OpenAIEmbedder,
    embedder_from_settings,
    offline_embedder_for,
)
from graphwire.core.settings import EmbeddingBackend, Settings, get_settings

EF_NAME = "graphwire-embedder"
EMBEDDING_KEY = "graphwire_embedding"  # collection metadata: the vector space the collection was built in
REVISION_KEY = "graphwire_revision"  # collection metadata: changes on every write
WRITE_BATCH = 256
READ_PAGE = 1000


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
    )


class ChunkStore:
    def __init__(self, client: Any, collection_name: str, embedder: Embedder) -> None:
        self.client = client
        self.collection_name = collection_name
        self.embedder = embedder
        self._ef = GraphwireEmbeddingFunction(embedder)
        self.collection = self._open_or_create()
        built_with = (self.collection.metadata or {}).get(EMBEDDING_KEY)
        if built_with != embedder.model_id:
            raise EmbeddingError(
                f"collection {collection_name!r} holds vectors from {built_with!r}, but the configured embedder is "
                f"{embedder.model_id!r}; re-ingest into a new CHROMA_COLLECTION or switch EMBEDDING_BACKEND / "
                "OFFLINE_EMBEDDING_MODEL back"
            )

    def _open_or_create(self) -> Any:
        try:
            return self.client.get_collection(self.collection_name, embedding_function=self._ef)
        except NotFoundError:
            pass
        try:
            return self.client.create_collection(
                self.collection_name,
                embedding_function=self._ef,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={EMBEDDING_KEY: self.embedder.model_id, REVISION_KEY: uuid.uuid4().hex},
            )
        except (UniqueConstraintError, InternalError):  # another process created it in between (local: Internal)
            return self.client.get_collection(self.collection_name, embedding_function=self._ef)

    @classmethod
    def from_settings(cls, settings: Settings) -> ChunkStore:
        return cls(open_client(settings), settings.chroma_collection, embedder_from_settings(settings))

    # writes -----------------------------------------------------------------------------------------------------

    def upsert(self, chunks: Sequence[Chunk]) -> int:
        """Embeds and writes the chunks (same id = replaced); returns how many were written."""
        for start in range(0, len(chunks), WRITE_BATCH):
            batch = chunks[start : start + WRITE_BATCH]
            self.collection.upsert(
                ids=[chunk.id for chunk in batch],
                embeddings=self.embedder.embed([chunk.text for chunk in batch]),
                documents=[chunk.text for chunk in batch],
                metadatas=[_metadata(chunk) for chunk in batch],
            )
        if chunks:
            self._bump_revision()
        return len(chunks)

    def delete_document(self, document_id: str) -> int:
        """Removes every chunk of one document; returns how many there were."""
        found = self.collection.get(where={"document_id": document_id}, include=[])
        ids = list(found["ids"])
        if ids:
            self.collection.delete(ids=ids)
            self._bump_revision()
        return len(ids)

    def _bump_revision(self) -> None:
        metadata = dict(self.collection.metadata or {})
        metadata[REVISION_KEY] = uuid.uuid4().hex
        self.collection.modify(metadata=metadata)

    # reads ------------------------------------------------------------------------------------------------------

    def revision(self) -> str:
        """A marker that changes whenever any process writes to the collection."""
        current = self.client.get_collection(self.collection_name, embedding_function=self._ef)
        return str((current.metadata or {}).get(REVISION_KEY, ""))

    def count(self) -> int:
        return int(self.collection.count())

    def query(self, text: str, k: int, chunk_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """The k nearest chunks by cosine similarity (best first), optionally only among `chunk_ids`."""
        return self.query_vector(self.embedder.embed_query(text), k, chunk_ids)

    def query_vector(self, vector: Any, k: int, chunk_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        if chunk_ids is not None:  # Chroma fails the whole query on an unknown id: keep the stored ones
            chunk_ids = list(self.collection.get(ids=list(dict.fromkeys(chunk_ids)), include=[])["ids"])
        size = self.count() if chunk_ids is None else len(chunk_ids)
        if k <= 0 or size == 0:
            return []
        found = self.collection.query(
            query_embeddings=[vector],
            n_results=min(k, size),
            ids=chunk_ids,
            include=["distances"],
        )
        ids, distances = found["ids"][0], cast(list[list[float]], found["distances"])[0]
        return [(chunk_id, 1.0 - float(distance)) for chunk_id, distance in zip(ids, distances, strict=True)]

    def get(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order asked (unknown ids are left out)."""
        if not chunk_ids:
            return []
        found = self.collection.get(ids=list(chunk_ids), include=["documents", "metadatas"])
        by_id = {
            chunk_id: _chunk(chunk_id, text or "", dict(meta or {}))
            for chunk_id, text, meta in zip(found["ids"], found["documents"], found["metadatas"], strict=True)
        }
        return [by_id[chunk_id] for chunk_id in chunk_ids if chunk_id in by_id]

    def iter_all(self) -> Iterator[Chunk]:
        offset = 0
        while True:
            page = self.collection.get(limit=READ_PAGE, offset=offset, include=["documents", "metadatas"])
            if not page["ids"]:
                return
            for chunk_id, text, meta in zip(page["ids"], page["documents"], page["metadatas"], strict=True):
                yield _chunk(chunk_id, text or "", dict(meta or {}))
            offset += len(page["ids"])

    def get_all(self) -> list[Chunk]:
        """Every chunk, ordered by document id then position (a stable order for index building)."""
        return sorted(self.iter_all(), key=lambda chunk: (chunk.document_id, chunk.index, chunk.id))

    def get_all_with_vectors(self) -> tuple[list[Chunk], Any]:
        """Every chunk (same order as `get_all`) and its stored embedding as one float32 matrix (rows match)."""
        import numpy as np

        rows: list[tuple[Chunk, Any]] = []
        offset = 0
        while True:
            page = self.collection.get(limit=READ_PAGE, offset=offset, include=["documents", "metadatas", "embeddings"])
            if not len(page["ids"]):
                break
            for chunk_id, text, meta, vector in zip(
                page["ids"], page["documents"], page["metadatas"], page["embeddings"], strict=True
            ):
                rows.append((_chunk(chunk_id, text or "", dict(meta or {})), vector))
            offset += len(page["ids"])
        rows.sort(key=lambda row: (row[0].document_id, row[0].index, row[0].id))
        dimension = self.embedder.dimension if not rows else len(rows[0][1])
        matrix = np.asarray([vector for _, vector in rows], dtype=np.float32).reshape(len(rows), dimension)
        return [chunk for chunk, _ in rows], matrix
