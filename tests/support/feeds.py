"""A loopback HTTP server the feed tests change as they go: pages and feeds by path, each feed with an ETag (a
conditional GET whose If-None-Match matches is answered 304), a redirect loop, a slow answer; and RSS built from
entries.

    with FeedSite() as site:
        site.put("/feed.xml", rss("Circuit Weekly", [entry(...)]), "application/rss+xml")
"""

from __future__ import annotations

import hashlib
import threading
import time
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from graphwire.core.settings import Settings
from graphwire.ingest.formats.base import LoadOptions


def rss_item(title: str, link: str, *, published: str | None = None, summary: str = "", content: str = "",
             guid: str | None = None) -> str:  # fmt: skip
    """One <item>; `published` an ISO date or None (an undated entry)."""
    parts = [f"<title>{title}</title>", f"<link>{link}</link>", f"<guid>{guid or link}</guid>"]
    if published:
        from datetime import datetime

        parts.append(f"<pubDate>{format_datetime(datetime.fromisoformat(published))}</pubDate>")
    if summary:
        parts.append(f"<description><![CDATA[{summary}]]></description>")
    if content:
        parts.append(f"<content:encoded><![CDATA[{content}]]></content:encoded>")
    return f"<item>{''.join(parts)}</item>"


def rss(title: str, items: list[str]) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>'
        f"<title>{title}</title><link>http://example.org/</link><description>News</description>"
        f"{''.join(items)}</channel></rss>"
    ).encode()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a client that gave up (the timeout test) is expected, not an error to print


class FeedSite:
    """Serves `pages` (path -> content type, body); counts GETs and 304 answers per path."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[str, bytes]] = {}
        self.gets: dict[str, int] = {}
        self.not_modified: dict[str, int] = {}
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                site.gets[self.path] = site.gets.get(self.path, 0) + 1
                if self.path == "/loop":
                    return self._answer(302, b"", "text/plain", {"Location": "/loop"})
                if self.path == "/slow":
                    time.sleep(3)
                if self.path not in site.pages:
                    return self._answer(404, b"not found", "text/plain")
                content_type, body = site.pages[self.path]
                etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
                if self.headers.get("If-None-Match") == etag:
                    site.not_modified[self.path] = site.not_modified.get(self.path, 0) + 1
                    return self._answer(304, b"", content_type, {"ETag": etag})
                return self._answer(200, body, content_type, {"ETag": etag})

            def _answer(
                self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if status != 304:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if status != 304:
                    self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def put(self, path: str, body: bytes | str, content_type: str = "text/html; charset=utf-8") -> str:
        self.pages[path] = (content_type, body.encode() if isinstance(body, str) else body)
        return f"{self.url}{path}"

    def __enter__(self) -> FeedSite:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def loopback_options(**limits: Any) -> LoadOptions:
    """The fetch limits with the test's own server allowed (the default refuses loopback)."""
    return LoadOptions(fetch_allowed_hosts=frozenset({"127.0.0.1"}), fetch_timeout_s=1.0, fetch_max_redirects=3,
                       **limits)  # fmt: skip


def loopback_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"fetch_allowed_hosts": "127.0.0.1"})
