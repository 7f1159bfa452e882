"""/v1/graph/edits: fix the graph by hand. Each edit can be previewed (`dry_run`), is audited and can be undone.

The routes are a thin surface over `ingest/curation/service.py` (`Curation`), the door the CLI and the Python API use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import WRITER, CurationDep, SettingsDep
from graphwire.app.errors import ApiError
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
T = TypeVar("T")

DryRun = Annotated[bool, Query(description="Answer what would change; change nothing.")]


class UndoRequest(BaseModel):
    by: Annotated[str, Field(min_length=1, max_length=300)] = "unknown"
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


@router.post("/graph/edits", response_model=EditResult, dependencies=[WRITER])
async def edit(
    request: EditRequest, curation: CurationDep, settings: SettingsDep, dry_run: DryRun = False
) -> EditResult:
    """Apply one edit (merge, rename, relabel, alias, delete-entity, delete-fact, add-fact), or preview it."""
    if dry_run:
        return await _call(lambda: curation.preview(request))
    return await _call(lambda: curation.apply(request, wait_s=_wait_s(settings)))


@router.get("/graph/edits", response_model=list[EditRecord])
async def edits(
    curation: CurationDep,
    entity: Annotated[str | None, Query(max_length=500, description="Only edits that touched this entity key.")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> list[EditRecord]:
    """The audit log, newest first."""
    return await _call(lambda: curation.log(entity, limit))


@router.get("/graph/edits/candidates", response_model=list[Candidate])
async def candidates(
    curation: CurationDep,
    entity: Annotated[str | None, Query(max_length=500, description="Only pairs with this entity key.")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 20,
) -> list[Candidate]:
    """The review queue: candidate merges with their evidence and score, best first (accept: a `merge` edit)."""
    return await _call(lambda: curation.candidates(limit, entity))


@router.post("/graph/edits/candidates/reject", response_model=Rejection, dependencies=[WRITER])
async def reject(body: PairRequest, curation: CurationDep, settings: SettingsDep) -> Rejection:
    """Reject a candidate pair: the queue never proposes it again, also after a re-ingest."""
    return await _call(lambda: curation.reject(body, wait_s=_wait_s(settings)))


@router.post("/graph/edits/candidates/unreject", status_code=204, dependencies=[WRITER])
async def unreject(body: PairRequest, curation: CurationDep, settings: SettingsDep) -> None:
    """Take a rejection back (404 when the pair was not rejected)."""
    await _call(lambda: curation.unreject(body, wait_s=_wait_s(settings)))


@router.get("/graph/edits/candidates/rejections", response_model=list[Rejection])
async def rejections(curation: CurationDep) -> list[Rejection]:
    """The rejected pairs, oldest first."""
    return await _call(curation.rejections)


@router.get("/graph/edits/{edit_id}", response_model=EditRecord)
async def get_edit(edit_id: str, curation: CurationDep) -> EditRecord:
    """One audit record."""
    return await _call(lambda: curation.get(edit_id))


@router.post("/graph/edits/{edit_id}/undo", response_model=EditResult, dependencies=[WRITER])
async def undo(
    edit_id: str, body: UndoRequest, curation: CurationDep, settings: SettingsDep, dry_run: DryRun = False
) -> EditResult:
    """Write back the state before an edit; 409 with the reason when a later edit or ingest touched its entities."""
    return await _call(lambda: curation.undo(edit_id, body.by, body.reason, dry_run=dry_run, wait_s=_wait_s(settings)))
