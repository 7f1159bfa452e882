"""The documents API: post documents (a job), list and read them, delete one.

Document ids are the graph's `Document.id`: the article's url when it has one, else a 32-character hash. In a path,
percent-encode the id (`urllib.parse.quote(id, safe="")`); the route takes the rest of the path, slashes included.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import DocumentWritesDep, GraphDep, GraphProviderDep, SettingsDep
from graphwire.app.errors import ApiError
from graphwire.app.jobs.models import JobState
from graphwire.app.uploads import read_upload

MAX_OFFSET = 1_000_000_000  # far below Neo4j's 64-bit SKIP + LIMIT, far above any store


def _day_query(description: str) -> Any:
    return Query(description=description, pattern=r"^\d{4}-\d{2}-\d{2}$", json_schema_extra={"format": "date"})


router = APIRouter(tags=["documents"])
ENTITY_LIMIT = 200

_RECORD = {"type": "object", "description": "title, body (required); source, published_at, url, author, category"}
_POST_BODY = {
    "required": True,
    "content": {
        "application/json": {"schema": {"type": "object", "required": ["documents"], "properties": {
            "documents": {"type": "array", "minItems": 1, "items": _RECORD}}}},
        "application/x-ndjson": {"schema": {"type": "string", "description": "one JSON record per line"}},
        "multipart/form-data": {"schema": {"type": "object", "properties": {
            "file": {"type": "string", "format": "binary", "description": "a .json or .jsonl file"}}}},
    },
}  # fmt: skip


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
    entities: list[DocumentEntity] = Field(
        description=f"Entities its chunks mention, most first (at most {ENTITY_LIMIT})."
    )


class DocumentDeleted(BaseModel):
    id: str = Field(description="The deleted document's id.")
    deleted: bool = Field(description="Always true (an unknown id is a 404).")
    chunks: int = Field(description="Chunks removed with it.")
    relationships: int = Field(description="Relationships no other chunk supported, removed.")
    entities: int = Field(description="Entities nothing else mentioned, removed.")


@router.post("/documents", status_code=202, response_model=JobAccepted, openapi_extra={"requestBody": _POST_BODY})
async def post_documents(
    request: Request, settings: SettingsDep, writes: DocumentWritesDep, graphs: GraphProviderDep
) -> JobAccepted:
    """Queue documents for ingestion: `{"documents": [...]}`, JSON Lines, or a multipart .json/.jsonl `file`.
    503 with Retry-After when Neo4j cannot be reached now (a job accepted then would only fail)."""
    upload = await read_upload(request, settings.upload_max_bytes, settings.upload_max_documents)
    await run_in_threadpool(lambda: graphs.get().ping())
    job = await run_in_threadpool(writes.submit, upload)
    return JobAccepted(job_id=job.job_id, state=job.state, documents=upload.count)


@router.get("/documents", response_model=DocumentList)
def list_documents(
    graphs: GraphProviderDep,  # reached only after every parameter is valid: a bad one is a 422 even without Neo4j
    source: Annotated[str | None, Query(description="Only documents with this corpus source.")] = None,
    published_after: Annotated[str | None, _day_query("Published on or after this date (YYYY-MM-DD).")] = None,
    published_before: Annotated[str | None, _day_query("Published on or before this date (YYYY-MM-DD).")] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="Page size.")] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Documents to skip.")] = 0,
) -> DocumentList:
    """Stored documents, paged, filtered by source and publication date."""
    filters = {"source": source, "published_after": _day(published_after), "published_before": _day(published_before)}
    graph = graphs.get()
    rows = graph.read("documents/list", **filters, limit=limit, offset=offset)
    total = graph.read("documents/count", **filters)[0]["total"]
    return DocumentList(items=[DocumentItem(**row) for row in rows], total=total)


@router.get("/documents/{document_id:path}", response_model=DocumentDetail)
def get_document(document_id: str, graph: GraphDep) -> DocumentDetail:
    """One document: metadata, chunk count, and the entities its chunks mention."""
    rows = graph.read("documents/get", document_id=document_id)
    if not rows:
        raise _not_found(document_id)
    entities = graph.read("documents/entities", document_id=document_id, limit=ENTITY_LIMIT)
    return DocumentDetail(**rows[0], entities=[DocumentEntity(**e) for e in entities])


@router.delete("/documents/{document_id:path}", response_model=DocumentDeleted)
async def delete_document(document_id: str, writes: DocumentWritesDep) -> DocumentDeleted:
    """Delete a document, its chunks and vectors, and what only it supported (as `graphwire ingest --delete`)."""
    deleted: dict[str, Any] | None = await run_in_threadpool(writes.delete, document_id)
    if deleted is None:
        raise _not_found(document_id)
    return DocumentDeleted(
        id=deleted["id"], deleted=True, chunks=deleted["chunks"], relationships=deleted["relationships"],
        entities=deleted["entities"],
    )  # fmt: skip


def _day(text: str | None) -> str | None:
    """A calendar date as ISO text (YYYY-MM-DD only: a number is not read as seconds since 1970), or a 422."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError as exc:
        raise ApiError(422, "validation_error", f"{text!r} is not a calendar date (YYYY-MM-DD)") from exc


def _not_found(document_id: str) -> ApiError:
    return ApiError(404, "not_found", f"no document with id {document_id!r}")
