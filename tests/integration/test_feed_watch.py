"""Feeds that keep a workspace current, against real Neo4j and Chroma and a changing feed served by a loopback HTTP
server the test runs: the watcher ingests two new entries, skips the unchanged feed on the next poll (a conditional
GET answered 304, nothing re-ingested), then ingests a new entry and updates a changed one; the API's watcher
(FEED_WATCH) ingests through a document job, reports each feed in /v1/feeds, /v1/jobs and /metrics, and a feed that
is not XML is one message with a backoff, nothing stored touched."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.documents import news_page
from support.feeds import FeedSite, rss, rss_item

from graphwire.app.main import create_app
from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.feed_state import FeedStateStore
from graphwire.ingest.feed_watch import FeedWatcher, WatchOptions, direct_sink

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
ROUND = ("<p>Paradigm Ventures invested $40 million in Lumen Labs, a Berlin-based startup that designs low-power "
         "inference chips. The round values the company at about $310 million.</p>")  # fmt: skip
RAISED = ("<p>Paradigm Ventures raised its investment in Lumen Labs to $55 million, the company said on Friday, "
          "after the first chips shipped to customers in June.</p>")  # fmt: skip
CEO = "Ada Park became chief executive of Lumen Labs this week; Felix Brandt becomes chief technology officer."


@pytest.fixture
def site() -> Iterator[FeedSite]:
    with FeedSite() as site:
        yield site


@pytest.fixture
def settings(neo4j_settings: Settings, tmp_path: Path) -> Settings:
    return neo4j_settings.model_copy(update={
        "chroma_path": tmp_path / "chroma", "ingest_state_path": tmp_path / "state",
        "store_lock_dir": tmp_path / "locks", "fetch_allowed_hosts": "127.0.0.1",  # the test's own server
    })  # fmt: skip


def _serve_first_feed(site: FeedSite) -> str:
    page = site.put("/ceo", news_page("Lumen Labs picks its chief", [("Leadership", CEO)], site="Circuit Weekly"))
    return site.put("/feed.xml", rss("Circuit Weekly", [
        rss_item("Paradigm backs Lumen Labs", f"{site.url}/round", published="2026-03-04T09:00:00+00:00",
                 content=ROUND),
        rss_item("Lumen Labs names a chief", page, published="2026-03-05T09:00:00+00:00", summary="A new chief."),
    ]), "application/rss+xml")  # fmt: skip


def _documents(graph: Graph) -> dict[str, dict[str, Any]]:
    rows = graph.read(
        "documents/list", source=None, published_after=None, published_before=None, readers=None, limit=50, offset=0
    )
    return {row["url"]: row for row in rows}


def _text(graph: Graph, document_id: str) -> str:
    return " ".join(row["text"] for row in graph.read("documents/chunks", document_id=document_id, readers=None))


def test_the_watcher_ingests_new_entries_skips_an_unchanged_feed_and_updates_a_changed_entry(
    graph: Graph, settings: Settings, site: FeedSite
) -> None:
    feed = _serve_first_feed(site)
    store = ChunkStore.from_settings(settings)
    state = FeedStateStore(settings.ingest_state_path)
    watcher = FeedWatcher([feed], state, direct_sink(settings, graph, store), WatchOptions.from_settings(settings))

    first = watcher.poll(feed)
    assert (first.outcome, first.new, first.updated, first.failures) == ("ingested", 2, 0, []), first
    documents = _documents(graph)
    assert set(documents) == {f"{site.url}/round", f"{site.url}/ceo"}
    assert documents[f"{site.url}/ceo"]["source"] == "Circuit Weekly"
    assert str(documents[f"{site.url}/ceo"]["published"]) == "2026-03-05"
    assert "Ada Park became chief executive" in _text(graph, f"{site.url}/ceo")  # the linked page, fetched
    chunks = store.count()
    assert chunks >= 2 and site.gets["/ceo"] == 1

    second = watcher.poll(feed)
    assert (second.outcome, second.new, second.updated) == ("not_modified", 0, 0), second
    assert site.not_modified["/feed.xml"] == 1 and site.gets["/ceo"] == 1  # a 304: no entry read, no page fetched
    assert _documents(graph) == documents and store.count() == chunks

    site.put("/feed.xml", rss("Circuit Weekly", [
        rss_item("Paradigm raises its Lumen stake", f"{site.url}/round", published="2026-03-06T09:00:00+00:00",
                 content=RAISED),
        rss_item("Lumen Labs names a chief", f"{site.url}/ceo", published="2026-03-05T09:00:00+00:00",
                 summary="A new chief."),
        rss_item("Lumen Labs opens in Munich", f"{site.url}/munich", published="2026-03-07T09:00:00+00:00",
                 content="<p>Lumen Labs opened an office in Munich with forty engineers from Paradigm Ventures.</p>"),
    ]), "application/rss+xml")  # fmt: skip
    third = watcher.poll(feed)
    assert (third.outcome, third.new, third.updated, third.unchanged) == ("ingested", 1, 1, 1), third
    assert site.gets["/ceo"] == 1  # the unchanged entry was not read again
    documents = _documents(graph)
    assert len(documents) == 3 and documents[f"{site.url}/round"]["title"] == "Paradigm raises its Lumen stake"
    assert "$55 million" in _text(graph, f"{site.url}/round") and "$40 million" not in _text(graph, f"{site.url}/round")
    assert state.status(feed).entries == 3 and state.status(feed).errors == 0


def test_the_api_watches_feeds_into_jobs_and_reports_each_feed(
    graph: Graph, settings: Settings, site: FeedSite
) -> None:
    feed = _serve_first_feed(site)
    broken = site.put("/broken.xml", "<html>this is not a feed", "application/rss+xml")
    watching = settings.model_copy(update={"feed_watch": True, "feed_urls": f"{feed}, {broken}",
                                           "feed_poll_interval_s": 3600.0})  # fmt: skip
    with TestClient(create_app(watching)) as client:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            feeds = {status["url"]: status for status in client.get("/v1/feeds").json()}
            if all(status["outcome"] for status in feeds.values()):
                break
            time.sleep(0.2)
        good, bad = feeds[feed], feeds[broken]
        assert (good["outcome"], good["entries"], good["errors"]) == ("ingested", 2, 0), good
        assert good["message"].startswith("2 new, 0 updated, 0 unchanged")
        assert bad["outcome"] == "error" and bad["errors"] == 1 and bad["entries"] == 0, bad
        assert bad["message"].startswith("not an RSS or Atom feed: the answer is html (next try in 7200 s)"), bad
        waited = datetime.fromisoformat(bad["next_poll_at"]) - datetime.now(UTC)
        assert 3600 < waited.total_seconds() <= 7200  # twice the interval after one failure

        job = client.get(f"/v1/jobs/{good['job_id']}").json()
        assert job["state"] == "succeeded" and job["progress"]["documents_total"] == 2, job
        assert good["job_id"] in {j["job_id"] for j in client.get("/v1/jobs").json()}
        audited = client.get("/v1/auth/audit", params={"target": good["job_id"]}).json()  # the watcher posted it
        assert [(e["action"], e["actor"]) for e in audited] == [("document.job.succeeded", "feed-watcher")]
        added = client.get("/v1/auth/audit", params={"target": f"{site.url}/round"}).json()
        assert [(e["action"], e["actor"], e["detail"]["job_id"]) for e in added] == [
            ("document.add", "feed-watcher", good["job_id"])]  # fmt: skip
        metrics = client.get("/metrics").text
        assert f'graphwire_feed_polls_total{{feed="{feed}",outcome="ingested"}} 1.0' in metrics
        assert f'graphwire_feed_entries_total{{feed="{feed}",outcome="new"}} 2.0' in metrics
        assert f'graphwire_feed_consecutive_errors{{feed="{broken}"}} 1.0' in metrics
    assert set(_documents(graph)) == {f"{site.url}/round", f"{site.url}/ceo"}


def test_graphwire_watch_once_reports_each_feed_in_one_line(graph: Graph, settings: Settings, site: FeedSite) -> None:
    feed = _serve_first_feed(site)
    env = {
        **os.environ, "NEO4J_URI": settings.neo4j_uri, "NEO4J_PASSWORD": settings.resolved_neo4j_password(),
        "INGEST_STATE_PATH": str(settings.ingest_state_path), "STORE_LOCK_DIR": str(settings.store_lock_dir),
        "FETCH_ALLOWED_HOSTS": "127.0.0.1", "COLUMNS": "300",
    }  # fmt: skip

    def watch() -> tuple[int, str]:
        command = [
            sys.executable,
            "-m",
            "graphwire.cli.main",
            "watch",
            feed,
            f"{site.url}/loop",
            "--once",
            "--no-vectors",
        ]
        run = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=240)
        assert "Traceback" not in run.stdout + run.stderr, run.stderr[-3000:]
        return run.returncode, run.stdout

    code, out = watch()
    assert code == 3, out  # one feed failed
    assert f"ingested {feed}: 2 new, 0 updated, 0 unchanged" in out
    assert f"error {site.url}/loop: more than 5 redirects (FETCH_MAX_REDIRECTS) (next try in 1800 s)" in out
    code, out = watch()
    assert f"not_modified {feed}: not modified since the last poll (HTTP 304)" in out and code == 3
    assert len(_documents(graph)) == 2
