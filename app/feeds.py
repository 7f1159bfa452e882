"""The API's feed watcher (FEED_WATCH): one thread polls FEED_URLS on their schedule (ingest/feed_watch.py) and hands
each poll's new and changed entries to the document jobs (app/jobs/) as one job, so they are written by the same
worker, under the same writer lock and with the same crash recovery as posted documents, and show in /v1/jobs. The
thread waits for its job before it remembers the entries; GET /v1/feeds reports each feed.
"""

from __future__ import annotations

import logging
import threading

from graphwire.app.jobs.models import FINISHED, JobState
from graphwire.app.jobs.service import DocumentWrites
from graphwire.app.uploads import Upload
from graphwire.core import metrics
from graphwire.core.auth.models import FEED_WATCHER
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.feed_state import FeedStateStore, FeedStatus
from graphwire.ingest.feed_watch import FeedWatcher, Ingested, WatchOptions, WatchStopped, feed_urls

log = logging.getLogger(__name__)
JOB_CHECK_S = 0.25  # how often the watcher looks whether its job finished


class FeedPoller:
    def __init__(self, settings: Settings, writes: DocumentWrites) -> None:
        self.settings = settings
        self.writes = writes
        self.feeds = feed_urls(settings.feed_urls)
        self.state = FeedStateStore(settings.ingest_state_path)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.watcher = FeedWatcher(self.feeds, self.state, self._ingest, WatchOptions.from_settings(settings))

    @property
    def enabled(self) -> bool:
        return self.settings.feed_watch and bool(self.feeds)

    def start(self) -> None:
        """Start polling when FEED_WATCH is on and FEED_URLS names feeds; else nothing runs."""
        metrics.FEED_ERRORS.source = self.errors
        if not self.enabled or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="graphwire-feeds", daemon=True)
        self._thread.start()
        log.info("feed watcher started", extra={"feeds": len(self.feeds)})

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=timeout_s)

    def statuses(self) -> list[FeedStatus]:
        """Every configured feed as its watcher last left it (polled by this API or by `graphwire watch`)."""
        return [self.state.status(url) for url in self.feeds]

    def errors(self) -> dict[str, float]:
        """Failed polls in a row per feed: the `graphwire_feed_consecutive_errors` gauge."""
        return {status.url: float(status.errors) for status in self.statuses()}

    def _run(self) -> None:
        try:
            self.watcher.run(self._stop)
        except WatchStopped:
            return
        except Exception:  # the state store itself failed: logged, the API keeps serving
            log.exception("the feed watcher stopped")

    def _ingest(self, url: str, articles: list[Article]) -> Ingested:
        """One document job for the poll's articles; waits for it, so the entries are remembered once committed."""
        records = [article.model_dump(mode="json") for article in articles]
        upload = Upload(records=records, positions=list(range(len(records))), failures=[])
        job = self.writes.submit(upload, FEED_WATCHER)
        while (current := self.writes.store.get(job.job_id)) is not None and current.state not in FINISHED:
            if self._stop.wait(JOB_CHECK_S):
                raise WatchStopped(url)
        if current is None or current.state != JobState.SUCCEEDED:
            raise RuntimeError(f"document job {job.job_id} {current.state.value if current else 'lost'}: "
                               f"{current.error if current else ''}")  # fmt: skip
        failed = {articles[f.position].doc_id: f.reason for f in current.failures if 0 <= f.position < len(articles)}
        return Ingested(failed=failed, job_id=job.job_id)
