"""Feeds that keep a workspace current: each feed polled on a schedule with a conditional GET (a 304 reads nothing),
its new and changed entries (by fingerprint, ingest/feed_state.py) read as documents and handed to a sink that
ingests them through the normal door (`graphwire watch`: a write session and an IngestRun, `direct_sink` below; the
API: a document job, app/feeds.py), and what happened remembered per feed. A poll that fails (not a feed, refused,
timed out, too large, redirected forever, the store down) is one message in the feed's status, and the feed's next
poll waits twice as long after each failure in a row, up to FEED_BACKOFF_MAX_S; nothing stored is touched.

    watcher = FeedWatcher(feeds, FeedStateStore(settings.ingest_state_path), direct_sink(...), WatchOptions(...))
    watcher.run(stop)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field

from graphwire.core import metrics
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.core.stores.write_session import WriteSession
from graphwire.ingest.feed_state import FeedStateStore, PollRecord
from graphwire.ingest.formats.base import DocumentError, LoadOptions
from graphwire.ingest.formats.dispatch import sniff
from graphwire.ingest.formats.feed import Feed, FeedEntry, parse_feed
from graphwire.ingest.formats.feed_entries import entry_record
from graphwire.ingest.formats.fetch import Fetched, Validators, fetch
from graphwire.ingest.loaders import load_located
from graphwire.ingest.pipeline import ChunkSink
from graphwire.ingest.service import IngestRun, ingest_options

log = logging.getLogger(__name__)
Outcome = Literal["ingested", "unchanged", "not_modified", "error"]


@dataclass
class Ingested:
    """What a sink did with a poll's articles: the documents that failed (id -> reason), its job, if any."""

    failed: dict[str, str] = field(default_factory=dict)
    job_id: str | None = None


class WatchStopped(RuntimeError):
    """The watcher is asked to stop while a sink waits: the poll is left unrecorded, its entries polled again later."""


# Ingests one feed's new and changed articles, crash-safe; raises when nothing could be ingested (the store is down).
Sink = Callable[[str, list[Article]], Ingested]


class FeedPoll(BaseModel):
    """One poll of one feed."""

    url: str
    outcome: Outcome
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    failures: list[str] = Field(default_factory=list)  # "title: reason" per entry not ingested (retried next poll)
    message: str
    job_id: str | None = None


@dataclass(frozen=True)
class WatchOptions:
    interval_s: float  # FEED_POLL_INTERVAL_S
    backoff_max_s: float  # FEED_BACKOFF_MAX_S
    load: LoadOptions  # the fetch and size limits of every other URL

    def backoff_s(self, errors: int) -> float:
        """The wait after `errors` failed polls in a row: the interval doubled per failure, at most the cap."""
        return min(self.interval_s * 2 ** min(errors, 30), max(self.backoff_max_s, self.interval_s))

    @classmethod
    def from_settings(cls, settings: Settings) -> WatchOptions:
        return cls(settings.feed_poll_interval_s, settings.feed_backoff_max_s, LoadOptions.from_settings(settings))


def feed_urls(text: str) -> list[str]:
    """FEED_URLS (comma- or whitespace-separated) as a list, in order, without repeats."""
    return list(dict.fromkeys(part for part in text.replace(",", " ").split() if part))


class FeedWatcher:
    def __init__(
        self,
        feeds: Sequence[str],
        state: FeedStateStore,
        sink: Sink,
        options: WatchOptions,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.feeds = list(feeds)
        self.state = state
        self.sink = sink
        self.options = options
        self.now = now

    def poll(self, url: str) -> FeedPoll:
        """Poll one feed now: conditional GET, new and changed entries ingested, the outcome remembered."""
        try:
            poll = self._poll(url)
        except WatchStopped:
            raise
        except Exception as exc:  # a DocumentError (the feed) or the sink's failure (the store): one line, backoff
            reason = str(exc) if isinstance(exc, DocumentError) else f"{type(exc).__name__}: {exc}"
            wait = self.options.backoff_s(self.state.status(url).errors + 1)
            poll = FeedPoll(url=url, outcome="error", message=f"{reason[:500]} (next try in {wait:g} s)")
            self.state.record(url, PollRecord(outcome="error", message=poll.message, error=True,
                                              next_poll_at=self.now() + timedelta(seconds=wait)))  # fmt: skip
            log.warning("feed poll failed", extra={"feed": url, "error": reason})
        metrics.FEED_POLLS.labels(url, poll.outcome).inc()
        for outcome, count in (("new", poll.new), ("updated", poll.updated), ("unchanged", poll.unchanged),
                               ("failed", len(poll.failures))):  # fmt: skip
            metrics.FEED_ENTRIES.labels(url, outcome).inc(count)
        return poll

    def _poll(self, url: str) -> FeedPoll:
        next_poll = self.now() + timedelta(seconds=self.options.interval_s)
        fetched = fetch(url, self.options.load, self.state.validators(url))
        if fetched.not_modified:
            message = "not modified since the last poll (HTTP 304)"
            self.state.record(url, PollRecord(outcome="not_modified", message=message, next_poll_at=next_poll))
            return FeedPoll(url=url, outcome="not_modified", message=message)
        feed = _read_feed(fetched)
        known = self.state.fingerprints(url)
        changed = [entry for entry in feed.entries if known.get(entry.key) != entry.fingerprint]
        articles, failures = self._articles(changed)
        result = self.sink(url, [article for _, article in articles]) if articles else Ingested()
        seen = {}
        for entry, article in articles:
            if article.doc_id in result.failed:
                failures.append(f"{entry.title or entry.key}: {result.failed[article.doc_id]}")
            else:
                seen[entry.key] = entry.fingerprint
        new = sum(1 for key in seen if key not in known)
        poll = FeedPoll(url=url, outcome="ingested" if seen else "unchanged", new=new, updated=len(seen) - new,
                        unchanged=len(feed.entries) - len(changed), failures=failures, message="",
                        job_id=result.job_id)  # fmt: skip
        poll.message = _message(poll, feed.undated)
        validators = Validators(etag=fetched.etag, last_modified=fetched.last_modified)
        self.state.record(url, PollRecord(
            outcome=poll.outcome, message=poll.message, title=feed.title, next_poll_at=next_poll, seen=seen,
            validators=None if failures else validators, keep_validators=False, job_id=result.job_id,
        ))  # fmt: skip
        return poll

    def _articles(self, entries: list[FeedEntry]) -> tuple[list[tuple[FeedEntry, Article]], list[str]]:
        """The entries as articles (a linked page fetched where the feed carries only a summary); failures in words."""
        articles: list[tuple[FeedEntry, Article]] = []
        failures: list[str] = []
        for entry in entries:
            try:
                loaded = load_located([(entry.key, entry_record(entry, self.options.load))])
            except DocumentError as exc:
                failures.append(f"{entry.title or entry.key}: {exc}")
                continue
            articles.extend((entry, article) for article in loaded.articles)
            failures.extend(f"{entry.title or entry.key}: {error.reason}" for error in loaded.errors)
        return articles, failures

    def due(self) -> list[str]:
        """The feeds whose next poll is now or past (never polled: at once)."""
        now = self.now()
        return [url for url in self.feeds if (at := self.state.status(url).next_poll_at) is None or at <= now]

    def seconds_to_next(self) -> float:
        times = [self.state.status(url).next_poll_at for url in self.feeds]
        upcoming = [t for t in times if t is not None]
        if len(upcoming) < len(times) or not upcoming:
            return 0.0
        return max(0.0, (min(upcoming) - self.now()).total_seconds())

    def run(self, stop: threading.Event, on_poll: Callable[[FeedPoll], None] = lambda poll: None) -> None:
        """Poll the feeds as they fall due until `stop` is set."""
        while not stop.is_set():
            for url in self.due():
                if stop.is_set():
                    return
                on_poll(self.poll(url))
            stop.wait(max(1.0, self.seconds_to_next()))


def _read_feed(fetched: Fetched) -> Feed:
    kind = sniff(fetched.data, fetched.url.split("?")[0], fetched.content_type)
    if kind != "feed":
        raise DocumentError(f"not an RSS or Atom feed: the answer is {kind or fetched.content_type or 'unknown'}")
    return parse_feed(fetched.data, fetched.url)


def _message(poll: FeedPoll, undated: int) -> str:
    parts = [f"{poll.new} new, {poll.updated} updated, {poll.unchanged} unchanged"]
    if poll.failures:
        parts.append(f"{len(poll.failures)} not ingested (retried next poll): " + "; ".join(poll.failures[:5])[:600])
    if undated:
        parts.append(f"{undated} entries state no date (stored undated)")
    return "; ".join(parts)


def direct_sink(settings: Settings, graph: Graph, chunk_store: ChunkSink | None, wait_s: float = 60.0) -> Sink:
    """The CLI's sink: each poll's articles ingested at once in a write session of their own (the writer lock held
    only while they are written), exactly as `graphwire ingest` writes."""

    def sink(url: str, articles: list[Article]) -> Ingested:
        with WriteSession(settings, lambda: graph, f"graphwire watch {url}").open(wait_s):
            run = IngestRun(articles, settings, options=ingest_options(settings, progress=False))
            report = run.run(graph, chunk_store=chunk_store)
        return Ingested(failed={f.document_id: f.reason for f in report.failures})

    return sink
