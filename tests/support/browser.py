"""Browser tests' helpers: Debian's chromium driven by Playwright (no browser download), the API served by uvicorn
on a loopback port, and a watch on each page that records console errors and any request leaving the machine."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlparse

import uvicorn
from fastapi import FastAPI
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Route

from graphwire.core.servers.neo4j_server import free_port

LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def chromium_path() -> str | None:
    """CHROMIUM_PATH, else Debian's `chromium` on PATH (apt-get install chromium)."""
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Run `app` under uvicorn in a thread on a free loopback port; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", log_config=None))
    thread = threading.Thread(target=server.run, name="ui-test-api", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API did not start within 60 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@dataclass
class PageWatch:
    """What went wrong on a page: console errors, uncaught exceptions, and requests to any other host (aborted)."""

    errors: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> Page:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        page.on("requestfailed", self._failed)
        page.route("**/*", self._only_local)
        return page

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def _failed(self, request: Request) -> None:
        if urlparse(request.url).hostname in LOCAL_HOSTS:
            self.errors.append(f"request failed: {request.url} ({request.failure})")

    def _only_local(self, route: Route) -> None:
        url = route.request.url
        if urlparse(url).scheme in {"data", "blob"} or urlparse(url).hostname in LOCAL_HOSTS:
            route.continue_()
            return
        self.outside.append(url)
        route.abort()

    def assert_clean(self) -> None:
        assert (self.errors, self.outside) == ([], []), f"errors {self.errors}; requests to other hosts {self.outside}"


def open_page(browser: Browser, width: int = 1280, height: int = 800) -> tuple[Page, PageWatch]:
    """A page in a fresh context (its own storage) of `width` x `height`, watched."""
    context = browser.new_context(viewport={"width": width, "height": height})
    watch = PageWatch()
    return watch.attach(context.new_page()), watch


def load_ui(page: Page, base_url: str, view: str = "ask") -> None:
    """Open /ui at `view` and wait until the page has started."""
    page.goto(f"{base_url}/ui/#{view}")
    page.wait_for_selector("body[data-ready='true']")
