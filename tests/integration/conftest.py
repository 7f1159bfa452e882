"""Fixtures of the integration tests: a temporary audit log for each test's CLI processes; for the browser tests
(test_ui_*.py), the demo graph in the test Neo4j and a Chroma store (ingested once per module, wiped after it), the
API serving it, Debian's chromium, and a watched page per test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from support.browser import PageWatch, chromium_path, open_page, serve
from support.demo import ingest_demo

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings


@pytest.fixture(scope="module")
def demo_settings(
    session_graph: Graph, neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Settings]:
    session_graph.write("admin/wipe")
    stores = tmp_path_factory.mktemp("ui-stores")
    settings = neo4j_settings.model_copy(update={"chroma_path": stores / "chroma", "chroma_collection": "ui_demo"})
    ingest_demo(session_graph, settings)
    yield settings
    session_graph.write("admin/wipe")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    executable = chromium_path()
    if executable is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is required under CI=true (apt-get install chromium)")
        pytest.skip("no chromium on PATH (apt-get install chromium, or set CHROMIUM_PATH)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def base_url(demo_settings: Settings) -> Iterator[str]:
    with serve(create_app(demo_settings)) as url:
        yield url


@pytest.fixture
def ui(chromium: Browser) -> Iterator[tuple[Page, PageWatch]]:
    page, watch = open_page(chromium)
    yield page, watch
    page.context.close()


@pytest.fixture(autouse=True)
def _own_audit_log(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI processes a test starts record their writes in the audit log (AUTH_STORE_PATH): a temporary one, never
    the checkout's .graphwire/auth/."""
    if "AUTH_STORE_PATH" not in os.environ:
        monkeypatch.setenv("AUTH_STORE_PATH", str(tmp_path_factory.mktemp("audit") / "principals.sqlite"))
