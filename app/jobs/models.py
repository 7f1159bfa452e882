"""The document job as the API reports it (GET /v1/jobs/{id}) and as the job store keeps it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"  # by a client (POST /v1/jobs/{id}/cancel); what it committed before stays


FINISHED = frozenset({JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED})


class JobProgress(BaseModel):
    documents_total: int = Field(default=0, description="Records the job was posted with.")
    documents_done: int = Field(
        default=0, description="Documents committed so far, written or already stored unchanged."
    )
    chunks: int = Field(default=0, description="Chunks written so far.")
    chunks_per_s: float = Field(default=0.0, description="Chunks written per second since the job started running.")


class JobFailure(BaseModel):
    position: int = Field(description="0-based position of the record in the posted list (JSONL: non-blank line).")
    title: str | None = Field(default=None, description="The record's title, when it has one.")
    reason: str = Field(description="Why the record was not ingested (or only partly).")


class Job(BaseModel):
    job_id: str = Field(description="The job's id, from POST /v1/documents.")
    state: JobState = Field(description="queued, running, succeeded, failed or cancelled.")
    created_at: datetime = Field(description="When the job was posted (UTC).")
    started_at: datetime | None = Field(default=None, description="When it started running (UTC).")
    finished_at: datetime | None = Field(default=None, description="When it finished (UTC); null until then.")
    progress: JobProgress = Field(default_factory=JobProgress, description="How far it got.")
    failures: list[JobFailure] = Field(
        default_factory=list, description="Records that were not ingested, by position, with the reason."
    )
    error: str | None = Field(
        default=None, description="Why the whole job failed or stopped (state failed or cancelled), else null."
    )
