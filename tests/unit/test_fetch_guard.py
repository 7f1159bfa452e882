"""URL fetching against a loopback HTTP server the test runs: the address guard refuses loopback (and private,
link-local) addresses by default and checks every redirect hop; FETCH_ALLOWED_HOSTS lets named hosts through and
only them; a slow, oversized or non-document answer is one clear line, nothing loaded."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from support.documents import news_page

from graphwire.ingest.formats.base import DocumentError, LoadOptions
from graphwire.ingest.formats.fetch import check_address
from graphwire.ingest.loaders import load_articles

PAGE = news_page("Quay repaired", [("Works", "The old quay was repaired in the spring by the harbour office crew.")])


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        port = self.server.server_address[1]
        if self.path == "/slow":
            time.sleep(3)
        if self.path == "/to-localhost":
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{port}/page")
            self.end_headers()
            return
        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
            return
        body, kind = (b"x" * 5000, "text/html") if self.path == "/big" else (PAGE.encode(), "text/html; charset=utf-8")
        if self.path == "/image":
            body, kind = b"\x89PNG\r\n", "image/png"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


ALLOWED = LoadOptions(fetch_allowed_hosts=frozenset({"127.0.0.1"}), fetch_timeout_s=1.0, fetch_max_redirects=3)


def _reason(url: str, options: LoadOptions) -> str:
    result = load_articles(url, options)
    assert result.articles == []
    [error] = result.errors
    assert error.location == url
    return error.reason


def test_loopback_is_refused_by_default(site: str) -> None:
    reason = _reason(f"{site}/page", LoadOptions())
    assert reason.startswith("refused: 127.0.0.1 resolves to 127.0.0.1, a loopback, private or link-local address")


@pytest.mark.parametrize("url", ["http://10.1.2.3/", "http://169.254.169.254/latest", "http://[::1]/",
                                 "http://[::ffff:192.168.0.1]/", "http://0.0.0.0/", "http://localhost/"])  # fmt: skip
def test_private_link_local_and_unspecified_addresses_are_refused(url: str) -> None:
    with pytest.raises(DocumentError, match="^refused: "):
        check_address(url, frozenset())


def test_an_allowed_host_is_fetched_and_every_redirect_hop_is_checked(site: str) -> None:
    [article] = load_articles(f"{site}/page", ALLOWED).articles
    assert (article.title, article.url, article.segments[0].label) == ("Quay repaired", f"{site}/page", "Works")
    assert _reason(f"{site}/to-localhost", ALLOWED) == "host localhost is not in FETCH_ALLOWED_HOSTS"
    assert _reason(f"{site}/loop", ALLOWED) == "more than 3 redirects (FETCH_MAX_REDIRECTS)"


def test_slow_large_and_non_document_answers_are_refused(site: str) -> None:
    assert _reason(f"{site}/slow", ALLOWED) == "timed out after 1 s (FETCH_TIMEOUT_S)"
    small = ALLOWED.model_copy(update={"document_max_bytes": 1000})
    assert _reason(f"{site}/big", small) == "5000 bytes, over the limit of 1000 (DOCUMENT_MAX_BYTES)"
    assert _reason(f"{site}/image", ALLOWED).startswith("content type 'image/png' is not a document")
