"""The documents API: post documents (a job), list and read them, delete one.

Document ids are the graph's `Document.id`: the article's url when it has one, else a 32-character hash. In a path,
percent-encode the id (`urllib.parse.quote(id, safe="")`); the route takes the rest of the path, slashes included.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import (
    ADMIN,
    WRITER,
    DocumentWritesDep,
    GraphDep,
    GraphProviderDep,
    PrincipalDep,
    SettingsDep,
)
from graphwire.app.documents import (
    AccessChange,
    AccessChanged,
    DocumentDeleted,
    DocumentDetail,
    DocumentList,
    JobAccepted,
    change_access,
    read_document,
    remove_document,
    submit_documents,
)
from graphwire.app.documents import (
    list_documents as list_stored,
)
from graphwire.app.uploads import read_upload
from graphwire.ingest.formats.base import LoadOptions

MAX_OFFSET = 1_000_000_000  # far below Neo4j's 64-bit SKIP + LIMIT, far above any store


def _day_query(description: str) -> Any:
    return Query(description=description, pattern=r"^\d{4}-\d{2}-\d{2}$", json_schema_extra={"format": "date"})


router = APIRouter(tags=["documents"])

_RECORD = {"type": "object", "description": "title, body (required); source, published_at, url, author, category"}
_POST_BODY = {
    "required": True,
    "content": {
        "application/json": {"schema": {"oneOf": [
            {"type": "object", "required": ["documents"], "properties": {
                "documents": {"type": "array", "minItems": 1, "items": _RECORD}}},
            {"type": "object", "required": ["urls"], "properties": {"urls": {
                "type": "array", "minItems": 1, "items": {"type": "string", "format": "uri"},
                "description": "http(s) URLs of pages or documents, fetched within FETCH_* and DOCUMENT_MAX_BYTES"}}},
        ]}},
        "application/x-ndjson": {"schema": {"type": "string", "description": "one JSON record per line"}},
        "multipart/form-data": {"schema": {"type": "object", "properties": {
            "file": {"type": "string", "format": "binary",
                     "description": "a .json or .jsonl file, or a PDF, DOCX, HTML, text or Markdown document"}}}},
    },
}  # fmt: skip


@router.post(
    "/documents",
    status_code=202,
    response_model=JobAccepted,
    openapi_extra={"requestBody": _POST_BODY},
    dependencies=[WRITER],
)
async def post_documents(
    request: Request, settings: SettingsDep, writes: DocumentWritesDep, graphs: GraphProviderDep, caller: PrincipalDep
) -> JobAccepted:
    """Queue documents for ingestion: `{"documents": [...]}`, `{"urls": [...]}` (fetched), JSON Lines, or a multipart
    `file` (.json/.jsonl, or one PDF, DOCX, HTML, text or Markdown document).
    503 with Retry-After when Neo4j cannot be reached now (a job accepted then would only fail)."""
    options = LoadOptions.from_settings(settings)
    upload = await read_upload(request, settings.upload_max_bytes, settings.upload_max_documents, options)
    return await run_in_threadpool(submit_documents, upload, writes, graphs, caller)


@router.get("/documents", response_model=DocumentList)
def list_documents(
    graphs: GraphProviderDep,  # reached only after every parameter is valid: a bad one is a 422 even without Neo4j
    caller: PrincipalDep,
    source: Annotated[str | None, Query(description="Only documents with this corpus source.")] = None,
    published_after: Annotated[str | None, _day_query("Published on or after this date (YYYY-MM-DD).")] = None,
    published_before: Annotated[str | None, _day_query("Published on or before this date (YYYY-MM-DD).")] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="Page size.")] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Documents to skip.")] = 0,
) -> DocumentList:
    """Stored documents the caller may read, paged, filtered by source and publication date."""
    return list_stored(graphs.get, source, published_after, published_before, limit, offset, caller.reader())


@router.put("/documents/{document_id:path}/access", response_model=AccessChanged, dependencies=[ADMIN])
async def put_document_access(
    document_id: str, change: AccessChange, writes: DocumentWritesDep, caller: PrincipalDep
) -> AccessChanged:
    """Who may read a document (groups and principal names; null: everyone), changed on the document and its chunks
    at once, without extracting it again. Needs the admin role."""
    return await run_in_threadpool(change_access, writes, document_id, change, caller)


@router.get("/documents/{document_id:path}", response_model=DocumentDetail)
def get_document(document_id: str, graph: GraphDep, caller: PrincipalDep) -> DocumentDetail:
    """One document: metadata, who may read it, chunk count, and the entities its chunks mention; 404 also for a
    document the caller may not read."""
    return read_document(graph, document_id, caller.reader())


@router.delete("/documents/{document_id:path}", response_model=DocumentDeleted, dependencies=[WRITER])
async def delete_document(document_id: str, writes: DocumentWritesDep, caller: PrincipalDep) -> DocumentDeleted:
    """Delete a document, its chunks and vectors, and what only it supported (as `graphwire ingest --delete`)."""
    return await run_in_threadpool(remove_document, writes, document_id, caller)
