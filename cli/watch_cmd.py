"""`graphwire watch [FEED_URL...]`: poll RSS/Atom feeds on a schedule and ingest their new and changed entries."""

from __future__ import annotations

import threading
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from graphwire.cli.common import fail, open_graph_or_exit
from graphwire.cli.ingest_cmd import chunk_store, quiet_driver_notifications
from graphwire.core.settings import get_settings
from graphwire.core.stores.bootstrap import apply_schema
from graphwire.ingest.feed_state import FeedStateStore
from graphwire.ingest.feed_watch import FeedPoll, FeedWatcher, WatchOptions, direct_sink, feed_urls

console = Console()


def watch(
    feeds: Annotated[
        list[str] | None, typer.Argument(metavar="[FEED_URL]...", help="RSS/Atom feed URLs (default: FEED_URLS)")
    ] = None,
    once: Annotated[bool, typer.Option(help="poll every feed once, then exit (for cron)")] = False,
    interval: Annotated[
        float | None, typer.Option(help="seconds between two polls of a feed (default: FEED_POLL_INTERVAL_S)")
    ] = None,
    vectors: Annotated[bool, typer.Option(help="also write the chunks to the vector store")] = True,
    wait: Annotated[float, typer.Option(help="seconds a poll waits while another process writes the store")] = 60.0,
) -> None:
    """Poll feeds (a conditional GET: unchanged feeds cost a 304) and ingest new and changed entries, each entry a
    document (the linked page fetched when the feed carries only a summary). Runs until Ctrl-C, or once with --once.

    Exit codes (--once): 0 every feed polled; 3 a feed failed or entries were not ingested (the message says why)."""
    quiet_driver_notifications()
    settings = get_settings()
    urls = feed_urls(" ".join(feeds)) if feeds else feed_urls(settings.feed_urls)
    if not urls:
        raise fail("no feeds: give feed URLs, or set FEED_URLS")
    graph = open_graph_or_exit(settings)
    try:
        apply_schema(graph, migrate=False)  # open_graph_or_exit moved a pre-workspace store
        options = WatchOptions.from_settings(settings)
        if interval is not None:
            options = WatchOptions(interval, options.backoff_max_s, options.load)
        sink = direct_sink(settings, graph, chunk_store(settings) if vectors else None, wait_s=wait)
        watcher = FeedWatcher(urls, FeedStateStore(settings.ingest_state_path), sink, options)
        if once:
            polls = [watcher.poll(url) for url in urls]
            for poll in polls:
                print_poll(poll)
            if any(poll.outcome == "error" or poll.failures for poll in polls):
                raise typer.Exit(code=3)
            return
        console.print(f"watching {len(urls)} feeds every {options.interval_s:g} s (Ctrl-C stops)")
        stop = threading.Event()
        try:
            watcher.run(stop, on_poll=print_poll)
        except KeyboardInterrupt:
            stop.set()
    finally:
        graph.close()


def print_poll(poll: FeedPoll) -> None:
    style = {"error": "red", "ingested": "green"}.get(poll.outcome, "dim")
    job = f" (job {poll.job_id})" if poll.job_id else ""
    console.print(f"[{style}]{poll.outcome}[/] {escape(poll.url)}: {escape(poll.message)}{job}", soft_wrap=True)
