"""GET /v1/graph/export (the graph, or an entity's neighbourhood, as JSON Lines, streamed) and POST /v1/graph/import
(a JSON Lines graph file, checked against the schema, then written under the writer lock).

A thin surface over `ingest/exchange/service.py` (`GraphExchange`), the door the CLI and the Python API use. The
import is synchronous: its body is bounded by GRAPH_IMPORT_MAX_BYTES (413 above it); a larger file is imported with
`graphwire import`. Errors (standard error body): 404 `entity_not_found`; 422 `invalid_graph_file` with
`details.errors`, one `{line, message}` per problem (nothing written); 409 `busy` naming the writer that holds the
store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, TypeVar

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from graphwire.app.audit_events import import_event
from graphwire.app.deps import WHOLE_STORE, WRITER, AuditDep, ExchangeDep, PrincipalDep
from graphwire.app.errors import ApiError
from graphwire.core.stores.store_lock import StoreBusyError
from graphwire.ingest.exchange.models import ExchangeError, ImportReport
from graphwire.ingest.exchange.reader import MAX_HOPS

router = APIRouter(tags=["graph"])

IMPORT_LOCK_WAIT_S = 5.0  # longest an import waits for another writer before its 409 naming it
T = TypeVar("T")
_GRAPH_FILE = {
    "schema": {
        "type": "string",
        "description": "a graph file: the header line, then one node or relationship per line (docs/export.md)",
    }
}
_IMPORT_BODY = {  # the body is read as text whatever its type: JSON Lines, or plain text as curl --data-binary sends
    "required": True,
    "content": {"application/x-ndjson": _GRAPH_FILE, "text/plain": _GRAPH_FILE},
}  # fmt: skip


async def _call(fn: Callable[[], T]) -> T:
    try:
        return await run_in_threadpool(fn)
    except ExchangeError as exc:
        code = "entity_not_found" if exc.status == 404 else "invalid_graph_file"
        details = {"errors": [e.model_dump() for e in exc.errors]} if exc.errors else None
        raise ApiError(exc.status, code, str(exc), details) from exc
    except StoreBusyError as exc:
        raise ApiError(409, "busy", str(exc)) from exc


_EXPORT_RESPONSE = {200: {"content": {"application/x-ndjson": {}}, "description": "The graph as JSON Lines."}}


@router.get("/graph/export", response_class=StreamingResponse, responses=_EXPORT_RESPONSE, dependencies=[WHOLE_STORE])  # type: ignore[arg-type]
async def export_graph(
    exchange: ExchangeDep,
    entity: Annotated[
        str | None, Query(min_length=1, max_length=500, description="An entity key: export only its neighbourhood.")
    ] = None,  # fmt: skip
    hops: Annotated[int, Query(ge=1, le=MAX_HOPS, description="Hops of the neighbourhood (1-3).")] = 1,
) -> StreamingResponse:
    """The whole graph, or the neighbourhood of one entity, as JSON Lines: the header, the nodes, the relationships,
    in a fixed order (two exports of the same graph are identical)."""
    lines = exchange.export_lines(entity, hops)
    first = await _call(lambda: next(lines))  # the whole read: an unknown entity is a 404, not a broken stream

    def body() -> Iterator[str]:
        yield first + "\n"
        for line in lines:
            yield line + "\n"

    return StreamingResponse(body(), media_type="application/x-ndjson")


@router.post(
    "/graph/import",
    response_model=ImportReport,
    openapi_extra={"requestBody": _IMPORT_BODY},
    dependencies=[WRITER, WHOLE_STORE],
)
async def import_graph(request: Request, exchange: ExchangeDep, caller: PrincipalDep, audit: AuditDep) -> ImportReport:
    """Import a JSON Lines graph file (GET /v1/graph/export writes one) into this store: every line is checked first,
    and nothing is written when one is wrong; nodes and relationships of the same key merge with the store's."""
    # split at newlines only: JSON keeps U+2028 and other line breaks of str.splitlines inside its strings
    text = (await request.body()).decode("utf-8", errors="replace")
    report = await _call(lambda: exchange.import_lines(text.split("\n"), wait_s=IMPORT_LOCK_WAIT_S))
    await run_in_threadpool(audit.record, caller, [import_event(report)])
    return report
