"""The feed watcher's bookkeeping against a loopback server and a sink that records what it is handed: errors back off
exponentially up to the cap, entries a sink failed are retried on the next poll (no conditional GET then), and the
state survives a new watcher on the same folder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.feeds import FeedSite, loopback_options, rss, rss_item

from graphwire.core.documents import Article
from graphwire.ingest.feed_state import FeedStateStore
from graphwire.ingest.feed_watch import FeedWatcher, Ingested, WatchOptions, feed_urls

TEXT = "<p>Lumen Labs opened an office in Munich with forty engineers, the company said on Monday.</p>"


class Recorder:
    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.fail: set[str] = set()  # urls the sink reports failed
        self.down = False

    def __call__(self, url: str, articles: list[Article]) -> Ingested:
        if self.down:
            raise ConnectionError("Neo4j is not reachable")
        self.batches.append([a.doc_id for a in articles])
        return Ingested(failed={doc: "extraction failed" for doc in self.fail if doc in self.batches[-1]})


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 4, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def site() -> Iterator[FeedSite]:
    with FeedSite() as site:
        yield site


def _watcher(feeds: list[str], folder: Path, sink: Recorder, clock: Clock) -> FeedWatcher:
    options = WatchOptions(interval_s=60, backoff_max_s=300, load=loopback_options())
    return FeedWatcher(feeds, FeedStateStore(folder), sink, options, now=clock)


def test_a_failing_feed_backs_off_exponentially_up_to_the_cap_and_recovers(site: FeedSite, tmp_path: Path) -> None:
    feed, sink, clock = f"{site.url}/late.xml", Recorder(), Clock()
    watcher = _watcher([feed], tmp_path, sink, clock)
    waits = []
    for _ in range(4):
        poll = watcher.poll(feed)
        assert poll.outcome == "error" and poll.message.startswith(f"HTTP 404 from {site.url[7:]} (next try in ")
        status = watcher.state.status(feed)
        waits.append((status.next_poll_at - clock.now).total_seconds())  # type: ignore[operator]
        assert watcher.due() == []
        clock.now = status.next_poll_at  # type: ignore[assignment]
    assert waits == [120, 240, 300, 300] and watcher.state.status(feed).errors == 4
    site.put("/late.xml", rss("Late", [rss_item("Munich", f"{site.url}/munich", content=TEXT)]), "application/rss+xml")
    assert watcher.due() == [feed]
    assert watcher.poll(feed).outcome == "ingested" and watcher.state.status(feed).errors == 0
    assert sink.batches == [[f"{site.url}/munich"]]


def test_entries_the_sink_failed_are_retried_and_the_state_survives_a_restart(site: FeedSite, tmp_path: Path) -> None:
    feed = site.put("/feed.xml", rss("Circuit", [
        rss_item("Munich", f"{site.url}/munich", content=TEXT),
        rss_item("Berlin", f"{site.url}/berlin", content=TEXT.replace("Munich", "Berlin")),
    ]), "application/rss+xml")  # fmt: skip
    sink, clock = Recorder(), Clock()
    sink.fail = {f"{site.url}/berlin"}
    first = _watcher([feed], tmp_path, sink, clock).poll(feed)
    assert (first.new, first.failures) == (1, ["Berlin: extraction failed"]), first
    assert "1 not ingested (retried next poll): Berlin: extraction failed" in first.message

    sink.fail = set()
    again = _watcher([feed], tmp_path, sink, clock)  # a new process on the same state folder
    second = again.poll(feed)
    assert site.not_modified.get("/feed.xml") is None  # validators were dropped: the failed entry is read again
    assert (second.outcome, second.new, second.unchanged) == ("ingested", 1, 1)
    assert sink.batches[-1] == [f"{site.url}/berlin"]
    assert again.poll(feed).outcome == "not_modified" and site.not_modified["/feed.xml"] == 1

    sink.down = True  # the store fails: the feed's entries stay as they were, the error is the message
    site.put("/feed.xml", rss("Circuit", [rss_item("Rome", f"{site.url}/rome", content=TEXT)]), "application/rss+xml")
    down = again.poll(feed)
    assert down.outcome == "error" and down.message.startswith("ConnectionError: Neo4j is not reachable")
    assert again.state.status(feed).entries == 2 and again.state.fingerprints(feed).keys() == {
        f"{site.url}/munich", f"{site.url}/berlin"
    }  # fmt: skip


def test_undated_entries_are_stored_undated_and_said_so(site: FeedSite, tmp_path: Path) -> None:
    feed = site.put("/undated.xml", rss("Circuit", [rss_item("Munich", f"{site.url}/munich", content=TEXT)]),
                    "application/rss+xml")  # fmt: skip
    poll = _watcher([feed], tmp_path, Recorder(), Clock()).poll(feed)
    assert poll.message == "1 new, 0 updated, 0 unchanged; 1 entries state no date (stored undated)"


def test_feed_urls_split_on_commas_and_spaces_without_repeats() -> None:
    assert feed_urls("http://a/rss, http://b/atom\nhttp://a/rss") == ["http://a/rss", "http://b/atom"]
    assert feed_urls("") == []
