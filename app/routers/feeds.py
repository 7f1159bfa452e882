"""Feeds the API watches (FEED_URLS, FEED_WATCH): each one's last poll, its errors in a row and its next poll."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from graphwire.app.deps import FeedsDep
from graphwire.ingest.feed_state import FeedStatus

router = APIRouter(tags=["documents"])


@router.get("/feeds", response_model=list[FeedStatus])
async def list_feeds(feeds: FeedsDep) -> list[FeedStatus]:
    """Every feed of FEED_URLS as its watcher (this API's, when FEED_WATCH is on, or `graphwire watch` on the same
    INGEST_STATE_PATH) last left it; each ingest is a document job (`job_id`, GET /v1/jobs/{job_id})."""
    return await run_in_threadpool(feeds.statuses)
