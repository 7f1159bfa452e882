"""/v1/graph/edits: fix the graph by hand. Each edit can be previewed (`dry_run`), is audited and can be undone.

The routes are a thin surface over `ingest/curation/service.py` (`Curation`), the door the CLI and the Python API use.
Each applied edit, undo, rejection and unrejection is also in the server's audit log (`graph.*`, docs/security.md)
with the caller's principal. The edit log's `by` is the caller's principal name when the caller authenticated as a
principal (AUTH_MODE=principals); with the shared API_KEY or none, it is the body's `by` as before (the shared key's
holder when the body names nobody, with a key).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from graphwire.app.audit_events import edit_event, pair_event
from graphwire.app.deps import WHOLE_STORE, WRITER, AuditDep, CurationDep, PrincipalDep, SettingsDep
from graphwire.app.errors import ApiError
from graphwire.core.auth.models import Principal
from graphwire.core.stores.store_lock import StoreBusyError
from graphwire.ingest.curation.models import (
    Candidate,
    EditError,
    EditRecord,
    EditRequest,
    EditResult,
    PairRequest,
    Rejection,
)

router = APIRouter(tags=["curation"])

EDIT_LOCK_WAIT_S = 5.0  # longest an edit waits for another writer before its 409 naming it
CODES = {404: "not_found", 409: "conflict", 422: "edit_refused"}
UNKNOWN = "unknown"  # the `by` of a body that names nobody
T = TypeVar("T")

DryRun = Annotated[bool, Query(description="Answer what would change; change nothing.")]


class UndoRequest(BaseModel):
    by: Annotated[str, Field(min_length=1, max_length=300)] = UNKNOWN
    reason: Annotated[str, Field(max_length=2000)] = ""


async def _call(fn: Callable[[], T]) -> T:
    try:
        return await run_in_threadpool(fn)
    except EditError as exc:
        raise ApiError(exc.status, CODES.get(exc.status, "edit_refused"), str(exc)) from exc
    except StoreBusyError as exc:
        raise ApiError(409, "busy", str(exc)) from exc


def _wait_s(settings: SettingsDep) -> float:
    return min(EDIT_LOCK_WAIT_S, settings.request_timeout_s)


def _author(caller: Principal, given: str) -> str:
    """Who the edit log names: a principal's own name; the body's `by` when the caller is anonymous or the holder of
    the one shared key (which names no person), that holder when the body names nobody."""
    if caller.via in ("key", "token"):
        return caller.name
    if caller.via == "shared_key" and given == UNKNOWN:
        return caller.name
    return given


@router.post("/graph/edits", response_model=EditResult, dependencies=[WRITER, WHOLE_STORE])
async def edit(
    request: EditRequest,
    curation: CurationDep,
    settings: SettingsDep,
    caller: PrincipalDep,
    audit: AuditDep,
    dry_run: DryRun = False,
) -> EditResult:
    """Apply one edit (merge, rename, relabel, alias, delete-entity, delete-fact, add-fact), or preview it."""
    if dry_run:
        return await _call(lambda: curation.preview(request))
    request = request.model_copy(update={"by": _author(caller, request.by)})
    result = await _call(lambda: curation.apply(request, wait_s=_wait_s(settings)))
    await run_in_threadpool(audit.record, caller, [edit_event("graph.edit", result)])
    return result


@router.get("/graph/edits", response_model=list[EditRecord], dependencies=[WHOLE_STORE])
async def edits(
    curation: CurationDep,
    entity: Annotated[str | None, Query(max_length=500, description="Only edits that touched this entity key.")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> list[EditRecord]:
    """The audit log, newest first."""
    return await _call(lambda: curation.log(entity, limit))


@router.get("/graph/edits/candidates", response_model=list[Candidate], dependencies=[WHOLE_STORE])
async def candidates(
    curation: CurationDep,
    entity: Annotated[str | None, Query(max_length=500, description="Only pairs with this entity key.")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 20,
) -> list[Candidate]:
    """The review queue: candidate merges with their evidence and score, best first (accept: a `merge` edit)."""
    return await _call(lambda: curation.candidates(limit, entity))


@router.post("/graph/edits/candidates/reject", response_model=Rejection, dependencies=[WRITER, WHOLE_STORE])
async def reject(
    body: PairRequest, curation: CurationDep, settings: SettingsDep, caller: PrincipalDep, audit: AuditDep
) -> Rejection:
    """Reject a candidate pair: the queue never proposes it again, also after a re-ingest."""
    body = body.model_copy(update={"by": _author(caller, body.by)})
    rejection = await _call(lambda: curation.reject(body, wait_s=_wait_s(settings)))
    await run_in_threadpool(audit.record, caller, [pair_event("graph.reject", body)])
    return rejection


@router.post("/graph/edits/candidates/unreject", status_code=204, dependencies=[WRITER, WHOLE_STORE])
async def unreject(
    body: PairRequest, curation: CurationDep, settings: SettingsDep, caller: PrincipalDep, audit: AuditDep
) -> None:
    """Take a rejection back (404 when the pair was not rejected)."""
    body = body.model_copy(update={"by": _author(caller, body.by)})
    await _call(lambda: curation.unreject(body, wait_s=_wait_s(settings)))
    await run_in_threadpool(audit.record, caller, [pair_event("graph.unreject", body)])


@router.get("/graph/edits/candidates/rejections", response_model=list[Rejection], dependencies=[WHOLE_STORE])
async def rejections(curation: CurationDep) -> list[Rejection]:
    """The rejected pairs, oldest first."""
    return await _call(curation.rejections)


@router.get("/graph/edits/{edit_id}", response_model=EditRecord, dependencies=[WHOLE_STORE])
async def get_edit(edit_id: str, curation: CurationDep) -> EditRecord:
    """One audit record."""
    return await _call(lambda: curation.get(edit_id))


@router.post("/graph/edits/{edit_id}/undo", response_model=EditResult, dependencies=[WRITER, WHOLE_STORE])
async def undo(
    edit_id: str,
    body: UndoRequest,
    curation: CurationDep,
    settings: SettingsDep,
    caller: PrincipalDep,
    audit: AuditDep,
    dry_run: DryRun = False,
) -> EditResult:
    """Write back the state before an edit; 409 with the reason when a later edit or ingest touched its entities."""
    by = _author(caller, body.by)
    result = await _call(lambda: curation.undo(edit_id, by, body.reason, dry_run=dry_run, wait_s=_wait_s(settings)))
    if result.applied:
        await run_in_threadpool(audit.record, caller, [edit_event("graph.undo", result)])
    return result
