"""What the documents routes (app/routers/documents.py) and the MCP document tools and resources share: the response
models, and listing, reading, submitting and deleting documents through the same statements and the same jobs.
Blocking (Neo4j, the writer lock): call from a thread.

Document ids are the graph's `Document.id`: the article's url when it has one, else a 32-character hash.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphwire.app.errors import ApiError
from graphwire.app.jobs.models import JobState
from graphwire.app.jobs.service import DocumentWrites
from graphwire.app.resources import GraphProvider
from graphwire.app.uploads import Upload
from graphwire.core.access import AccessList, Reader
from graphwire.core.auth.models import Principal
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import strip_prefix
from graphwire.ingest.chunker import join_pieces
from graphwire.retrieval.graph.chunks import to_date

ENTITY_LIMIT = 200


class JobAccepted(BaseModel):
    job_id: str = Field(description="Poll GET /v1/jobs/{job_id} for its progress.")
    state: JobState = Field(description="Always queued: jobs run one at a time, in order.")
    documents: int = Field(description="Records received (valid or not; invalid ones are listed in the job).")


class DocumentItem(BaseModel):
    id: str = Field(description="The document's id (its url, or a hash); percent-encode it in paths.")
    title: str = Field(description="The article's title.")
    source: str | None = Field(default=None, description="The corpus `source` (outlet), if any.")
    published: date | None = Field(default=None, description="Publication date, if known.")
    url: str | None = Field(default=None, description="The article's url, if any.")
    chunks: int = Field(description="Chunks stored for it.")


class DocumentList(BaseModel):
    items: list[DocumentItem] = Field(description="One page, newest first (undated last).")
    total: int = Field(description="Documents matching the filters, all pages.")


class DocumentEntity(BaseModel):
    name: str = Field(description="The entity's display name.")
    label: str = Field(description="Its label, e.g. Organization.")
    mentions: int = Field(description="How often the document's chunks mention it.")


class DocumentDetail(DocumentItem):
    author: str | None = Field(default=None, description="The article's author, if any.")
    category: str | None = Field(default=None, description="The article's category, if any.")
    committed: bool = Field(description="False while a job is still writing it (or one was interrupted).")
    access: list[str] | None = Field(
        default=None, description="The groups and principals that may read it; absent: everyone in the workspace."
    )
    entities: list[DocumentEntity] = Field(
        description=f"Entities its chunks mention, most first (at most {ENTITY_LIMIT})."
    )


class AccessChange(BaseModel):
    """The body of PUT /v1/documents/{id}/access."""

    model_config = ConfigDict(extra="forbid")

    access: AccessList = Field(
        description="Groups and principal names that may read the document (at most 100); null: everyone."
    )


class AccessChanged(BaseModel):
    id: str = Field(description="The document's id.")
    access: list[str] | None = Field(description="Who may read it now; null: everyone.")
    chunks: int = Field(description="Its chunks, which carry the same list.")


class DocumentDeleted(BaseModel):
    id: str = Field(description="The deleted document's id.")
    deleted: bool = Field(description="Always true (an unknown id is a 404).")
    chunks: int = Field(description="Chunks removed with it.")
    relationships: int = Field(description="Relationships no other chunk supported, removed.")
    entities: int = Field(description="Entities nothing else mentioned, removed.")


class StoredChunk(BaseModel):
    chunk_id: str = Field(description="The chunk's id (a hash of document, position and text).")
    document_id: str = Field(description="Id of the document it belongs to.")
    index: int | None = Field(default=None, description="Its position in the document, from 0.")
    title: str = Field(description="Title of the document.")
    source: str | None = Field(default=None, description="The document's outlet (corpus `source`), if known.")
    published_at: date | None = Field(default=None, description="The document's publication date, if known.")
    locator: str | None = Field(default=None, description='Where in its document: "p. 4" or a heading path.')
    char_start: int | None = Field(default=None, description="Offset of its body text into the document's body.")
    char_end: int | None = Field(default=None, description="Offset just past its body text.")
    text: str = Field(description="The chunk's text as retrieval reads it: a `[Source | Title | Published]` line, "
                                  "then its part of the body.")  # fmt: skip


class ChunkPlace(BaseModel):
    id: str = Field(description="The chunk's id.")
    index: int | None = Field(default=None, description="Its position in the document, from 0.")
    locator: str | None = Field(default=None, description='Where in the document: "p. 4" or a heading path.')
    char_start: int | None = Field(default=None, description="Offset of its body text into the document's body.")
    char_end: int | None = Field(default=None, description="Offset just past its body text.")


class DocumentText(BaseModel):
    text: str = Field(
        description="The body as stored in its chunks, joined where consecutive chunks overlap (the body as ingested, "
        "with its whitespace between chunks normalised)."
    )
    chunk_ids: list[str] = Field(description="Its chunks' ids, in order.")
    chunk_places: list[ChunkPlace] = Field(default_factory=list, description="Where each chunk lies, in order.")


def list_documents(
    graphs: Callable[[], Graph],
    source: str | None,
    after: str | None,
    before: str | None,
    limit: int,
    offset: int,
    reader: Reader,
) -> DocumentList:
    """Stored documents `reader` may read, newest first, filtered by corpus source and publication date
    (YYYY-MM-DD, inclusive). The dates are checked before Neo4j is reached: a bad one is a 422 even while Neo4j is
    down."""
    filters = {
        "source": source, "published_after": day(after), "published_before": day(before), "readers": reader.param()
    }  # fmt: skip
    graph = graphs()
    rows = graph.read("documents/list", **filters, limit=limit, offset=offset)
    total = graph.read("documents/count", **filters)[0]["total"]
    return DocumentList(items=[DocumentItem(**row) for row in rows], total=total)


def read_document(graph: Graph, document_id: str, reader: Reader) -> DocumentDetail:
    """One document: metadata, chunk count and the entities its chunks mention; 404 for an unknown id and for a
    document `reader` may not read (the same answer: no existence oracle)."""
    rows = graph.read("documents/get", document_id=document_id, readers=reader.param())
    if not rows:
        raise not_found(document_id)
    entities = graph.read("documents/entities", document_id=document_id, limit=ENTITY_LIMIT)
    return DocumentDetail(**rows[0], entities=[DocumentEntity(**e) for e in entities])


def read_document_text(graph: Graph, document_id: str, reader: Reader) -> DocumentText:
    """The document's body from its chunks (the graph keeps no other copy), and the chunks' ids in order; empty for
    a document `reader` may not read."""
    rows = graph.read("documents/chunks", document_id=document_id, readers=reader.param())
    return DocumentText(
        text=join_pieces([strip_prefix(row["text"]) for row in rows]),
        chunk_ids=[row["id"] for row in rows],
        chunk_places=[ChunkPlace(**{k: row[k] for k in ChunkPlace.model_fields}) for row in rows],
    )


def read_chunk(graph: Graph, chunk_id: str, reader: Reader) -> StoredChunk:
    """One stored chunk with its document's metadata; 404 for an unknown id and for one `reader` may not read."""
    rows = graph.read("documents/chunk", chunk_id=chunk_id, readers=reader.param())
    if not rows:
        raise ApiError(404, "not_found", f"no chunk with id {chunk_id!r}")
    row = rows[0]
    return StoredChunk(**{**row, "published_at": to_date(row["published_at"])})


def submit_documents(upload: Upload, writes: DocumentWrites, graphs: GraphProvider, actor: Principal) -> JobAccepted:
    """Queue a document job (app/jobs/) for `actor` (the audit's): 503 when Neo4j cannot be reached now (a job
    accepted then would only fail), 422 when no record is a valid document."""
    graphs.get().ping()
    job = writes.submit(upload, actor)
    return JobAccepted(job_id=job.job_id, state=job.state, documents=upload.count)


def remove_document(writes: DocumentWrites, document_id: str, actor: Principal) -> DocumentDeleted:
    """The CLI's delete through the API's writer (app/jobs/service.py), audited as `actor`'s; 404 for an unknown id,
    409 while a write holds the store."""
    deleted: dict[str, Any] | None = writes.delete(document_id, actor)
    if deleted is None:
        raise not_found(document_id)
    keys = ("chunks", "relationships", "entities")
    return DocumentDeleted(id=deleted["id"], deleted=True, **{key: deleted[key] for key in keys})


def change_access(writes: DocumentWrites, document_id: str, change: AccessChange, actor: Principal) -> AccessChanged:
    """Who may read a document, changed without extracting it again (app/jobs/service.py); 404 for an unknown id,
    409 while a write holds the store."""
    changed = writes.set_access(document_id, change.access, actor)
    if changed is None:
        raise not_found(document_id)
    return AccessChanged(id=changed["id"], access=change.access, chunks=changed["chunks"])


def day(text: str | None) -> str | None:
    """A calendar date as ISO text (YYYY-MM-DD only: a number is not read as seconds since 1970), or a 422."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError as exc:
        raise ApiError(422, "validation_error", f"{text!r} is not a calendar date (YYYY-MM-DD)") from exc


def not_found(document_id: str) -> ApiError:
    return ApiError(404, "not_found", f"no document with id {document_id!r}")
