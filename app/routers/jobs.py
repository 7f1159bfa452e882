"""Document jobs: list them, read one (state, progress, per-record failures), cancel one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import WRITER, AuditDep, DocumentWritesDep, PrincipalDep
from graphwire.app.errors import ApiError
from graphwire.app.jobs.models import FINISHED, Job, JobState

router = APIRouter(tags=["documents"])


@router.get("/jobs/{job_id}", response_model=Job)
async def get_job(job_id: str, writes: DocumentWritesDep) -> Job:
    """queued, running, succeeded or failed; a job the API was killed in is failed with the reason."""
    return await run_in_threadpool(writes.job, job_id)


@router.get("/jobs", response_model=list[Job])
async def list_jobs(
    writes: DocumentWritesDep,
    state: Annotated[JobState | None, Query(description="Only jobs in this state.")] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="At most this many, newest first.")] = 50,
) -> list[Job]:
    """The newest document jobs first, optionally in one state."""
    return await run_in_threadpool(writes.store.jobs, state, limit)


@router.post("/jobs/{job_id}/cancel", status_code=202, response_model=Job, dependencies=[WRITER])
async def cancel_job(job_id: str, writes: DocumentWritesDep, caller: PrincipalDep, audit: AuditDep) -> Job:
    """A queued job is cancelled at once; a running one stops at its next batch boundary (poll it: state cancelled),
    keeping what it committed. 409 for a job that already finished. Audited as `document.job.cancel` by the caller
    (the job's outcome, `document.job.cancelled`, names who posted it)."""
    job = await run_in_threadpool(writes.job, job_id)
    if job.state in FINISHED:
        raise ApiError(409, "conflict", f"job {job_id!r} already finished ({job.state.value})")
    await run_in_threadpool(audit.record, caller, [("document.job.cancel", job_id, {"state": job.state.value})])
    await run_in_threadpool(writes.runner.cancel, job_id)
    latest = await run_in_threadpool(writes.store.get, job_id)
    assert latest is not None
    return latest
