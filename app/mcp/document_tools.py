"""The MCP tools and resources over documents: `list_documents`, `get_document`, `get_job`, and with
MCP_ALLOW_WRITES `add_documents` and `delete_document`; the resources `graphwire://documents/{+id}` and
`graphwire://chunks/{id}`. They call what the documents and jobs routes call (app/documents.py, `DocumentWrites`):
a document added here is a job of the API's job store, run by its one worker under the writer lock, and a delete is
the API's delete, so crash safety and the lock are the same as over HTTP.

No `from __future__ import annotations` here, as in app/mcp/tools.py: the tools are defined inside `register`.
"""

import time
from collections.abc import Callable
from typing import Annotated

import anyio
from mcp.server.mcpserver import MCPServer, ResourceSecurity
from mcp_types import ToolAnnotations
from pydantic import Field

from graphwire.app.documents import (
    DocumentDeleted,
    list_documents,
    read_chunk,
    read_document,
    read_document_text,
    remove_document,
    submit_documents,
)
from graphwire.app.jobs.models import FINISHED, Job
from graphwire.app.mcp.models import (
    CHUNK_TEMPLATE,
    DOCUMENT_TEMPLATE,
    DocumentIn,
    DocumentOut,
    DocumentPage,
    DocumentRef,
    document_uri,
)
from graphwire.app.mcp.server import current_caller
from graphwire.app.services import Services
from graphwire.app.uploads import records_upload
from graphwire.core.settings import Settings

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
JOB_POLL_S = 0.25
MAX_OFFSET = 1_000_000_000  # as GET /v1/documents
Day = Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD (inclusive).")]
DocumentId = Annotated[str, Field(min_length=1, description="The document's id (its url, or a hash).")]


def register(server: MCPServer, settings: Settings, services: Callable[[], Services]) -> None:
    @server.tool(name="list_documents", title="List documents", annotations=READ_ONLY)
    def list_documents_tool(  # named apart from the shared `list_documents` it calls
        source: Annotated[str | None, Field(description="Only documents of this outlet (corpus source).")] = None,
        published_after: Day = None,
        published_before: Day = None,
        limit: Annotated[int, Field(ge=1, le=500, description="Page size.")] = 50,
        offset: Annotated[int, Field(ge=0, le=MAX_OFFSET, description="Documents to skip.")] = 0,
    ) -> DocumentPage:
        """The stored documents, newest first, a page at a time, filtered by outlet and publication date."""
        current = services()
        reader = current_caller().reader()
        page = list_documents(
            current.graph_provider.get, source, published_after, published_before, limit, offset, reader
        )
        items = [DocumentRef(**item.model_dump(), uri=document_uri(item.id)) for item in page.items]
        return DocumentPage(items=items, total=page.total)

    @server.tool(title="Read a document", annotations=READ_ONLY)
    def get_document(
        id: DocumentId,
        include_text: Annotated[bool, Field(description="Return the body and the chunk ids as well.")] = True,
    ) -> DocumentOut:
        """One document: its metadata, the entities it mentions and (by default) its text and chunk ids."""
        graph, reader = services().graph_provider.get(), current_caller().reader()
        detail = read_document(graph, id, reader)
        out = DocumentOut(**detail.model_dump(), uri=document_uri(detail.id))
        if include_text:
            text = read_document_text(graph, id, reader)
            out.text, out.chunk_ids, out.chunk_places = text.text, text.chunk_ids, text.chunk_places
        return out

    @server.tool(title="Read a document job", annotations=READ_ONLY)
    def get_job(job_id: Annotated[str, Field(min_length=1, description="The job's id, from add_documents.")]) -> Job:
        """A document job's state (queued, running, succeeded, failed, cancelled), progress and per-record
        failures."""
        return services().document_writes.job(job_id)

    _register_resources(server, services)
    if settings.mcp_allow_writes:
        _register_writes(server, settings, services)


def _register_writes(server: MCPServer, settings: Settings, services: Callable[[], Services]) -> None:
    @server.tool(
        title="Add documents",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                    open_world_hint=False),
    )  # fmt: skip
    async def add_documents(
        documents: Annotated[
            list[DocumentIn], Field(min_length=1, max_length=settings.upload_max_documents, description="The records.")
        ],
        wait_s: Annotated[
            float, Field(ge=0, le=settings.request_timeout_s, description="Seconds to wait for the job to finish.")
        ] = 30.0,
    ) -> Job:
        """Ingest documents into the graph and the vector store as a document job (as POST /v1/documents): they are
        answerable once the job has succeeded. Waits up to `wait_s` for it; poll `get_job` while it is still queued
        or running. A document with the same url (else the same content) as a stored one updates it; invalid records
        are listed in the job's failures by position."""
        current, actor = services(), current_caller()
        records = [document.model_dump(exclude_none=True) for document in documents]
        upload = records_upload(records, settings.upload_max_bytes, settings.upload_max_documents)
        writes = current.document_writes
        accepted = await anyio.to_thread.run_sync(submit_documents, upload, writes, current.graph_provider, actor)
        deadline = time.monotonic() + wait_s
        job = await anyio.to_thread.run_sync(writes.job, accepted.job_id)
        while job.state not in FINISHED and time.monotonic() < deadline:
            await anyio.sleep(min(JOB_POLL_S, max(deadline - time.monotonic(), 0)))
            job = await anyio.to_thread.run_sync(writes.job, accepted.job_id)
        return job

    @server.tool(
        title="Delete a document",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                                    open_world_hint=False),
    )  # fmt: skip
    def delete_document(id: DocumentId) -> DocumentDeleted:
        """Delete a document, its chunks and vectors, and the entities and relationships only it supported (as
        DELETE /v1/documents/{id}). Waits a few seconds for a running job to release the store, else fails with
        `busy`: try again when the job has finished."""
        return remove_document(services().document_writes, id, current_caller())


def _register_resources(server: MCPServer, services: Callable[[], Services]) -> None:
    @server.resource(
        DOCUMENT_TEMPLATE,
        name="document",
        title="Document",
        description="A stored document as Markdown: its title, source, date and url, then its text. The id is "
        "percent-encoded (a plain url works too).",
        mime_type="text/markdown",
        security=ResourceSecurity(exempt_params={"id"}),  # an id is a Cypher parameter, never a path
    )
    def document(id: str) -> str:
        graph, reader = services().graph_provider.get(), current_caller().reader()
        detail, text = read_document(graph, id, reader), read_document_text(graph, id, reader)
        facts = [detail.source, detail.published.isoformat() if detail.published else None, detail.url]
        line = " | ".join(fact for fact in facts if fact)
        return f"# {detail.title}\n\n{line}\n\n{text.text}\n" if line else f"# {detail.title}\n\n{text.text}\n"

    @server.resource(
        CHUNK_TEMPLATE,
        name="chunk",
        title="Chunk",
        description="A stored chunk (what a citation cites): a [Source | Title | Published] line, then its text.",
        mime_type="text/plain",
    )
    def chunk(id: str) -> str:
        return read_chunk(services().graph_provider.get(), id, current_caller().reader()).text
