"""Screenshots of the web UI and the API docs for the README, taken in headless chromium against a running API that
serves the demo graph (`graphwire demo`, or `graphwire ingest data/demo/articles.jsonl` and `graphwire serve`).

    .venv/bin/python tools/ui_screenshots.py --base-url http://127.0.0.1:8000 --out docs/img

Writes ui-ask.png, ui-graph-expanded.png, ui-graph-bridge.png, ui-curation.png, ui-compare.png, ui-documents.png,
ui-narrow.png, api-docs.png and api-redoc.png. The curation shot previews a rename and applies nothing. The documents
view re-posts one demo article (stored already, so nothing changes) to show a finished job.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?"
BRIDGE_QUESTION = "Which board member links Lumen Labs and Northwind Robotics?"
GRAPH = "window.graphwire.views.ask.graph.cy"


def _ready(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready='true']")


def _ask(page: Page, question: str = QUESTION) -> None:
    page.fill("#ask-question", question)
    page.select_option("#ask-answerer", "extractive")
    page.click("#ask-submit")
    page.wait_for_function("document.getElementById('ask-status').textContent.startsWith('Answered')", polling=100)


def ask_views(page: Page, base: str, out: Path) -> None:
    _ready(page, f"{base}/ui/#ask")
    _ask(page)
    page.screenshot(path=str(out / "ui-ask.png"))
    before = page.evaluate(f"{GRAPH}.nodes().length")
    page.locator("#facts button.link", has_text="Skylark Aero").first.click()  # the keyboard path to expand a node
    page.wait_for_function(f"{GRAPH}.nodes().length > {before}", polling=100)
    page.locator("#facts tr", has_text="CEO_OF").filter(has_text="Ada Park").get_by_role("button").last.click()
    page.locator(".graph-panel").screenshot(path=str(out / "ui-graph-expanded.png"))
    _ask(page, BRIDGE_QUESTION)
    page.locator(".graph-panel").screenshot(path=str(out / "ui-graph-bridge.png"))


def curation_view(page: Page, base: str, out: Path) -> None:
    _ready(page, f"{base}/ui/#ask")
    _ask(page)
    page.locator("#facts button.link", has_text="Skylark Aero").first.click()  # opens the entity panel
    page.locator("[data-edit='rename']").click()
    page.locator("#entity-panel .field input").fill("Skylark Aerospace")
    page.click("#edit-preview-button")  # a dry run: nothing is applied
    page.locator("#edit-preview [data-part='entities_added']").wait_for()
    page.locator(".graph-panel").screenshot(path=str(out / "ui-curation.png"))


def compare_view(page: Page, base: str, out: Path) -> None:
    _ready(page, f"{base}/ui/#compare")
    page.fill("#compare-question", QUESTION)
    page.select_option("#compare-mode-a", "graph")
    page.select_option("#compare-mode-b", "vector")
    page.select_option("#compare-answerer", "extractive")
    page.click("#compare-submit")
    page.wait_for_function("document.getElementById('compare-status').textContent.startsWith('Compared')", polling=100)
    page.screenshot(path=str(out / "ui-compare.png"))


def documents_view(page: Page, base: str, out: Path) -> None:
    _ready(page, f"{base}/ui/#documents")
    first = (ROOT / "data" / "demo" / "articles.jsonl").read_text(encoding="utf-8").splitlines()[0]
    folder = Path(tempfile.mkdtemp(prefix="graphwire-shots-"))
    try:
        upload = folder / "one-article.jsonl"
        upload.write_text(json.dumps(json.loads(first)) + "\n", encoding="utf-8")
        page.set_input_files("#upload-file", str(upload))
        page.click("#upload-submit")
        page.wait_for_selector("#job-state[data-state='succeeded']", timeout=180_000)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    page.screenshot(path=str(out / "ui-documents.png"))


def narrow_view(page: Page, base: str, out: Path) -> None:
    _ready(page, f"{base}/ui/#ask")
    _ask(page)
    page.screenshot(path=str(out / "ui-narrow.png"))


def api_docs(page: Page, base: str, out: Path) -> None:
    page.goto(f"{base}/docs")
    page.locator(".opblock-summary-path", has_text="/v1/query").first.wait_for()
    page.screenshot(path=str(out / "api-docs.png"))
    page.goto(f"{base}/redoc")
    page.locator("h1", has_text="graphwire").first.wait_for()
    page.screenshot(path=str(out / "api-redoc.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    base = args.base_url.rstrip("/")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, headless=True)
        shots = [(ask_views, (1280, 800)), (curation_view, (1280, 800)), (compare_view, (1280, 800)),
                 (documents_view, (1280, 800)), (narrow_view, (420, 860)), (api_docs, (1280, 800))]  # fmt: skip
        for shoot, size in shots:
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            shoot(page, base, args.out)
            page.close()
        browser.close()
    print(f"screenshots in {args.out}")


if __name__ == "__main__":
    main()
