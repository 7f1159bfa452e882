"""GET /v1/jobs/{job_id}: a document job's state, progress and per-record failures."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import DocumentWritesDep
from graphwire.app.errors import ApiError
from graphwire.app.jobs.models import Job

router = APIRouter(tags=["documents"])


@router.get("/jobs/{job_id}", response_model=Job)
async def get_job(job_id: str, writes: DocumentWritesDep) -> Job:
    """queued, running, succeeded or failed; a job the API was killed in is failed with the reason."""
    job = await run_in_threadpool(writes.store.get, job_id)
    if job is None:
        raise ApiError(404, "not_found", f"no job with id {job_id!r}")
    return job
