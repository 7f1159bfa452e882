"""Fixing the graph by hand from the web UI, in a real browser (Debian's chromium through Playwright) against the demo
graph in a real Neo4j and Chroma: open an entity from the graph view, rename it with a preview first, see the audit
record on the entity, undo it and see the old name back; a refused edit shows the API's own message."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.browser import PageWatch, load_ui

pytestmark = pytest.mark.integration
QUESTION = "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?"
GRAPH = "window.graphwire.views.ask.graph.cy"
OLD, NEW = "Skylark Aero", "Skylark Aerospace"


def entity_key(base_url: str, name: str) -> str | None:
    hits = httpx.get(f"{base_url}/v1/entities", params={"q": name, "label": "Organization"}).json()["entities"]
    return next((h["key"] for h in hits if h["name"] == name), None)


def open_entity(page: Page, name: str) -> None:
    """Ask the demo question, then open `name` from the facts table (the keyboard path to a graph node)."""
    page.fill("#ask-question", QUESTION)
    page.select_option("#ask-mode", "graph")
    page.select_option("#ask-answerer", "extractive")
    page.click("#ask-submit")
    page.wait_for_function("document.getElementById('ask-status').textContent.startsWith('Answered')", polling=100)
    page.locator("#facts button.link", has_text=name).first.click()
    expect(page.locator("#entity-heading")).to_have_text(f"{name} (Organization)")


def node_ids(page: Page) -> set[str]:
    ids: list[str] = page.evaluate(f"{GRAPH}.nodes().map(n => n.id())")
    return set(ids)


def test_rename_with_preview_then_undo(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url)
    old_key = entity_key(base_url, OLD)
    assert old_key and entity_key(base_url, NEW) is None
    open_entity(page, OLD)
    expect(page.locator("#entity-history")).to_have_text("No edits yet.")

    page.get_by_role("button", name="Rename", exact=True).focus()  # keyboard alone: Enter opens, types, previews
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.value") == OLD
    page.keyboard.press("Control+A")
    page.keyboard.type(NEW)
    page.keyboard.press("Enter")
    preview = page.locator("#edit-preview")
    expect(preview.locator("[data-part='entities_removed']")).to_contain_text(f"1 entities removed{old_key}")
    new_key = preview.locator("[data-part='entities_added'] li").inner_text()
    assert new_key.startswith("Organization:") and new_key != old_key
    assert httpx.get(f"{base_url}/v1/graph/edits").json() == []  # the preview changed nothing
    assert entity_key(base_url, NEW) is None

    page.click("#edit-apply")  # no name given: refused in the page, nothing sent
    expect(page.locator("#entity-status")).to_have_text(re.compile("^Enter your name in By"))
    page.fill("#edit-by", "ana")
    page.fill("#edit-reason", "the company's own spelling")
    page.click("#edit-apply")
    expect(page.locator("#entity-heading")).to_have_text(f"{NEW} (Organization)")
    expect(page.locator("#entity-status")).to_have_text(f"Applied: {old_key} renamed to {NEW}.")
    assert f"Organization:{NEW}" in node_ids(page) and f"Organization:{OLD}" not in node_ids(page)  # redrawn
    records: list[dict[str, Any]] = httpx.get(f"{base_url}/v1/graph/edits").json()
    assert [(r["kind"], r["by"], r["reason"]) for r in records] == [("rename", "ana", "the company's own spelling")]
    history = page.locator("#entity-history li")
    expect(history).to_have_count(1)
    assert f"{old_key} renamed to {NEW}" in history.inner_text()
    assert "by ana: the company's own spelling" in history.inner_text()
    assert page.evaluate("localStorage.getItem('graphwire.editor')") == "ana"

    history.get_by_role("button", name=f"Undo: {old_key} renamed to {NEW}").click()
    page.click("#edit-preview-button")
    expect(preview.locator("[data-part='entities_added'] li")).to_have_text(old_key)
    assert page.input_value("#edit-by") == "ana"  # remembered
    page.click("#edit-apply")
    expect(page.locator("#entity-heading")).to_have_text(f"{OLD} (Organization)")
    assert entity_key(base_url, OLD) == old_key and entity_key(base_url, NEW) is None
    assert f"Organization:{OLD}" in node_ids(page) and f"Organization:{NEW}" not in node_ids(page)
    expect(page.locator("#entity-history li")).to_have_count(2)
    rename = page.locator("#entity-history li", has_text="renamed to")
    assert "undone by" in rename.inner_text() and rename.get_by_role("button").count() == 0
    watch.assert_clean()


def test_a_refused_edit_shows_the_api_message(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url)
    key = entity_key(base_url, OLD)
    edits = httpx.get(f"{base_url}/v1/graph/edits").json()
    open_entity(page, OLD)
    page.locator("[data-edit='merge']").click()
    page.locator(f"input[name='survivor'][value='{key}']").check()  # the search found the entity itself
    page.click("#edit-preview-button")
    refused = httpx.post(f"{base_url}/v1/graph/edits", params={"dry_run": "true"},
                         json={"edit": {"kind": "merge", "survivor": key, "merged": key}})  # fmt: skip
    assert refused.status_code in {409, 422}
    status = page.locator("#entity-status[role='alert']")
    expect(status).to_have_text(refused.json()["error"]["message"])
    assert page.is_disabled("#edit-apply")
    assert httpx.get(f"{base_url}/v1/graph/edits").json() == edits  # nothing changed
    assert len(watch.errors) == 1 and str(refused.status_code) in watch.errors[0]  # the refused request, logged
    assert watch.outside == []
