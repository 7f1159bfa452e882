"""The web UI at /ui in a real browser (Debian's chromium through Playwright) against the demo graph in a real Neo4j
and Chroma: ask and read the answer, its citations and its graph; expand a node, open an edge's evidence; compare two
modes; the API key asked once per session; keyboard use and a narrow window; /docs and /redoc offline. Every page
must log no console error and reach no host but the API's own."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Response, expect
from pydantic import SecretStr
from support.browser import PageWatch, load_ui, open_page, serve
from support.demo import DEMO, ingest_documents
from support.openai_stub import MODEL, OpenAIStub, Responder, StubReply, text

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.models import ABSTENTION

pytestmark = pytest.mark.integration
QUESTION = "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?"
CITED = "Lumen Labs names Ada Park chief executive as it readies first chip"
PATH = "Paradigm Ventures \u2014INVESTED_IN\u2192 Lumen Labs \u2190CEO_OF\u2014 Ada Park"
API_KEY = "ui-browser-key-0123456789"
GRAPH = "window.graphwire.views.ask.graph.cy"


def ask(page: Page, question: str = QUESTION, mode: str = "graph") -> None:
    page.fill("#ask-question", question)
    page.select_option("#ask-mode", mode)
    page.select_option("#ask-answerer", "extractive")
    page.click("#ask-submit")
    page.wait_for_selector("#ask-result:not([hidden])")
    page.wait_for_function("document.getElementById('ask-status').textContent.startsWith('Answered')", polling=100)


def graph_data(page: Page) -> dict[str, Any]:
    data: dict[str, Any] = page.evaluate(
        f"""() => ({{
            nodes: {GRAPH}.nodes().map(n => n.id()),
            edges: {GRAPH}.edges().map(e => [e.source().data('name'), e.data('relationship'), e.target().data('name'),
                                             e.classes()]),
            question: {GRAPH}.nodes('.question').map(n => n.data('name')),
            answer: {GRAPH}.nodes('.answer').map(n => n.data('name')),
        }})"""
    )
    return data


def click_graph(page: Page, selector: str) -> None:
    """A real mouse click on a node, or on a point of an edge's curve, that Cytoscape hit-tests as that element
    (centred and scrolled into view first; a node or a label drawn over the edge's midpoint moves the point)."""
    page.evaluate(
        f"() => {{ {GRAPH}.center({GRAPH}.$(`{selector}`)); {GRAPH}.container().scrollIntoView({{block: 'center'}}); }}"
    )
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")  # scrolled
    point = page.evaluate(
        f"""() => {{
            const cy = {GRAPH};
            const el = cy.$(`{selector}`)[0];
            const container = cy.container();
            const box = container.getBoundingClientRect();  // the canvas starts inside the container's border
            const [left, top] = [box.left + container.clientLeft, box.top + container.clientTop];
            const [zoom, pan] = [cy.zoom(), cy.pan()];
            const toClient = (p) => ({{x: left + p.x * zoom + pan.x, y: top + p.y * zoom + pan.y}});
            if (el.isNode()) return toClient(el.position());
            const [a, b] = [el.sourceEndpoint(), el.targetEndpoint()];
            const c = (el.controlPoints() || [])[0] || {{x: (a.x + b.x) / 2, y: (a.y + b.y) / 2}};
            for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]) {{
                const at = {{x: (1 - t) ** 2 * a.x + 2 * (1 - t) * t * c.x + t ** 2 * b.x,
                             y: (1 - t) ** 2 * a.y + 2 * (1 - t) * t * c.y + t ** 2 * b.y}};
                const client = toClient(at);  // hit-tested where the mouse will land, as Cytoscape maps it back
                const [x, y] = cy.renderer().projectIntoViewport(client.x, client.y);
                const hit = cy.renderer().findNearestElement(x, y, true, false);
                if (hit && hit.id() === el.id()) return client;
            }}
            return null;
        }}"""
    )
    assert point is not None, f"no point of {selector} is clear of other elements"
    page.mouse.click(point["x"], point["y"])


def test_ask_shows_the_answer_its_citations_timings_and_graph(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url)
    ask(page)
    assert page.inner_text("#answer-text") == "Ada Park"
    citations = page.locator("#citations a.citation")
    assert CITED in citations.all_inner_texts()
    assert "The Ledger Daily, 2026-03-04" in page.inner_text("#citations")
    quotes = page.locator("#citations .cited-quote").all_inner_texts()  # the evidence sentences the facts rest on
    assert quotes and any("Ada Park" in q or "Lumen Labs" in q for q in quotes)
    assert page.locator("#timings th", has_text="request").count() == 1
    assert "llm calls" in page.inner_text("#usage")
    citations.filter(has_text=CITED).click()  # the link leads to the cited passage
    focused = page.evaluate("document.activeElement.id")
    assert focused.startswith("passage-") and CITED in page.inner_text(f"#{focused}")

    drawn = graph_data(page)
    assert {"Organization:Paradigm Ventures", "Organization:Lumen Labs", "Person:Ada Park"} <= set(drawn["nodes"])
    assert "Paradigm Ventures" in drawn["question"] and drawn["answer"] == ["Ada Park"]
    on_path = {(s, r, o) for s, r, o, classes in drawn["edges"] if "on-path" in classes}
    assert on_path == {("Paradigm Ventures", "INVESTED_IN", "Lumen Labs"), ("Ada Park", "CEO_OF", "Lumen Labs")}
    assert page.inner_text("#graph-path") == f"Path: {PATH}"
    assert "composed from graph facts" in page.inner_text("#answer-meta")  # answer_kind, in words
    assert len(drawn["edges"]) == page.locator("#facts tbody tr").count()  # one edge per fact row
    ask(page, mode="auto")
    assert "mode auto \u2192 " in page.inner_text("#answer-meta")  # the mode auto chose, and why
    watch.assert_clean()


def test_a_bridge_question_draws_both_paths_to_the_answer(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url)
    ask(page, "Which board member links Lumen Labs and Northwind Robotics?")
    assert page.inner_text("#answer-text") == "Priya Natarajan"
    drawn = graph_data(page)
    assert set(drawn["question"]) == {"Lumen Labs", "Northwind Robotics"} and drawn["answer"] == ["Priya Natarajan"]
    on_path = {(s, r, o, "bridge" in classes) for s, r, o, classes in drawn["edges"] if "on-path" in classes}
    assert on_path == {("Priya Natarajan", "WORKS_FOR", "Lumen Labs", True),
                       ("Priya Natarajan", "WORKS_FOR", "Northwind Robotics", True)}  # fmt: skip
    paths = page.inner_text("#graph-path").removeprefix("Path: ").split("; ")
    assert sorted(paths) == [
        "Lumen Labs \u2190WORKS_FOR\u2014 Priya Natarajan",
        "Northwind Robotics \u2190WORKS_FOR\u2014 Priya Natarajan",
    ]
    assert page.locator("#facts .tier.bridge").count() == len([e for e in drawn["edges"] if "bridge" in e[3]]) > 0
    watch.assert_clean()


def test_an_unanswerable_question_abstains_with_its_reason(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url)
    ask(page, "Who is the chief executive of Pellucid Robotics?")
    answer = page.locator("#answer-text")
    assert answer.inner_text() == ABSTENTION and "abstained" in (answer.get_attribute("class") or "")
    assert "no question entity or publication matched a graph node" in page.inner_text("#answer-meta")
    assert page.inner_text("#citations") == "none"
    assert page.evaluate(f"{GRAPH}.elements().length") == 0
    assert "No graph facts" in page.inner_text("#graph-inspector") and "No graph facts" in page.inner_text("#facts")
    watch.assert_clean()


def test_graph_edges_show_evidence_and_nodes_expand(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url)
    ask(page)
    click_graph(page, "edge[relationship = 'CEO_OF'][source = 'Person:Ada Park'][target = 'Organization:Lumen Labs']")
    inspector = page.locator("#graph-inspector")
    inspector.locator("h4").wait_for()
    assert inspector.locator("h4").inner_text() == "Ada Park \u2014CEO_OF\u2192 Lumen Labs"
    assert "Ada Park" in inspector.locator("blockquote").first.inner_text()
    assert CITED in inspector.locator("a").all_inner_texts()  # the evidence's chunk, linked to its passage

    before = set(graph_data(page)["nodes"])
    assert "Product:Kestrel" not in before
    click_graph(page, "node[id = 'Organization:Skylark Aero']")
    page.wait_for_function(f"{GRAPH}.nodes().length > {len(before)}", polling=100)
    after = graph_data(page)
    assert {"Product:Kestrel", "Person:Rui Almeida"} <= set(after["nodes"])
    assert ("Skylark Aero", "PRODUCED", "Kestrel", ["neighbour"]) in [tuple(e) for e in after["edges"]]
    assert "new relationship" in inspector.inner_text()
    watch.assert_clean()


def test_keyboard_alone_asks_and_opens_evidence(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.focus("#ask-question")
    page.keyboard.type(QUESTION)
    for _ in range(5):  # mode, answerer, top k, stream, Ask
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "ask-submit"
    page.keyboard.press("Enter")
    page.wait_for_selector("#ask-result:not([hidden])")
    assert page.inner_text("#answer-text") == "Ada Park"
    evidence = page.locator("#facts tbody tr", has_text="CEO_OF").filter(has_text="Ada Park").get_by_role("button")
    evidence.filter(has_text="Evidence").first.focus()
    page.keyboard.press("Enter")
    assert page.locator("#graph-inspector h4").inner_text() == "Ada Park \u2014CEO_OF\u2192 Lumen Labs"
    watch.assert_clean()


def test_compare_shows_two_modes_side_by_side(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    load_ui(page, base_url, "compare")
    assert page.is_visible("#compare-form") and not page.is_visible("#ask-form")
    page.fill("#compare-question", QUESTION)
    page.select_option("#compare-mode-a", "graph")
    page.select_option("#compare-mode-b", "vector")
    page.select_option("#compare-answerer", "extractive")
    page.click("#compare-submit")
    page.wait_for_selector("#compare-result:not([hidden])")
    left, right = page.locator("#compare-a"), page.locator("#compare-b")
    assert left.locator("h3").inner_text() == "Mode graph" and right.locator("h3").inner_text() == "Mode vector"
    assert left.locator("[data-role='answer']").inner_text() == "Ada Park"
    assert right.locator("[data-role='answer']").inner_text() != ""
    left_ids = {
        i.removeprefix("compare-a-passage-") for i in left.locator("li.passage").evaluate_all("l => l.map(e => e.id)")
    }
    right_ids = {
        i.removeprefix("compare-b-passage-") for i in right.locator("li.passage").evaluate_all("l => l.map(e => e.id)")
    }
    assert left_ids and right_ids  # each mode's passages
    assert left.locator(".badge.shared").count() == len(left_ids & right_ids) == right.locator(".badge.shared").count()
    assert CITED in left.locator("a.citation").all_inner_texts()
    watch.assert_clean()


def test_narrow_window_stacks_the_panels(chromium: Browser, base_url: str) -> None:
    page, watch = open_page(chromium, width=420, height=900)
    try:
        load_ui(page, base_url)
        ask(page)
        answer_box = page.locator(".answer-panel").bounding_box()
        graph_box = page.locator(".graph-panel").bounding_box()
        assert answer_box and graph_box and graph_box["y"] >= answer_box["y"] + answer_box["height"]
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scrolling
        watch.assert_clean()
    finally:
        page.context.close()


def test_api_key_is_asked_once_and_kept_for_the_session(chromium: Browser, demo_settings: Settings) -> None:
    guarded = demo_settings.model_copy(update={"api_key": SecretStr(API_KEY)})
    with serve(create_app(guarded)) as url:
        page, watch = open_page(chromium)
        try:
            page.goto(f"{url}/ui/")
            page.wait_for_selector("#api-key-dialog[open]")
            page.fill("#api-key-input", API_KEY)
            page.click("#api-key-save")
            page.wait_for_selector("body[data-ready='true']")
            ask(page)
            assert page.inner_text("#answer-text") == "Ada Park"
            page.reload()
            page.wait_for_selector("body[data-ready='true']")
            assert not page.is_visible("#api-key-dialog")
            ask(page)
            assert page.inner_text("#answer-text") == "Ada Park"
            assert page.evaluate("sessionStorage.getItem('graphwire.apiKey')") == API_KEY
            watch.assert_clean()

            # a key the server refuses: the dialog asks again, both requests of the compare retry with the new key
            page.evaluate("sessionStorage.setItem('graphwire.apiKey', 'not-the-key')")
            page.click("[data-view-link='compare']")
            page.fill("#compare-question", QUESTION)
            page.select_option("#compare-answerer", "extractive")
            page.click("#compare-submit")
            page.wait_for_selector("#api-key-dialog[open]")
            assert "refused" in page.inner_text("#api-key-reason")
            page.fill("#api-key-input", API_KEY)
            page.click("#api-key-save")
            page.wait_for_selector("#compare-result:not([hidden])")
            assert page.locator("#compare-a [data-role='answer']").inner_text() == "Ada Park"
            assert len(watch.errors) == 2 and all("401" in e for e in watch.errors)  # the two refused requests
        finally:
            page.context.close()


def with_stub_llm(settings: Settings, stub: OpenAIStub, answer: Responder) -> Settings:
    """`settings` with the OpenAI-compatible stub as the LLM: the graph retriever's call for the question's names
    finds Paradigm Ventures, the answer call gets `answer`."""

    def reply(request: dict[str, Any]) -> StubReply:
        if "response_format" in request:  # the question's names, asked of the LLM by the graph retriever
            return text(json.dumps({"entities": [{"name": "Paradigm Ventures", "aliases": []}]}))(request)
        return answer(request)

    stub.fallback = reply
    return settings.model_copy(
        update={"llm_base_url": stub.base_url, "llm_api_key": SecretStr("test-key"), "llm_model": MODEL,
                "llm_timeout_s": 5.0, "llm_max_retries": 0}
    )  # fmt: skip


def submit(page: Page) -> Response:
    """Submit the ask form; the /v1/query response, once the page says it answered."""
    with page.expect_response(lambda r: r.url.endswith("/v1/query")) as response:
        page.click("#ask-submit")
    page.wait_for_function("document.getElementById('ask-status').textContent.startsWith('Answered')", polling=100)
    return response.value


def test_llm_answers_show_their_usage(chromium: Browser, demo_settings: Settings, openai_stub: OpenAIStub) -> None:
    """With an LLM configured (the OpenAI-compatible stub), the page shows the llm answerer and its token usage."""
    with serve(create_app(with_stub_llm(demo_settings, openai_stub, text("Ada Park [1].")))) as url:
        page, watch = open_page(chromium)
        try:
            load_ui(page, url)
            page.fill("#ask-question", QUESTION)
            page.select_option("#ask-answerer", "llm")
            response = submit(page)
            assert page.inner_text("#answer-text") == "Ada Park [1]."
            assert page.inner_text("#answer-meta").startswith(f"llm:{MODEL}")
            assert page.locator("#citations a.citation").count() == 1
            reported = response.json()["usage"]  # what the API says this answer cost
            answer_call = [r for r in openai_stub.chat_requests if "response_format" not in r.body][-1]
            assert answer_call.usage is not None and reported["llm_calls"] >= 1
            assert reported["completion_tokens"] >= answer_call.usage["completion_tokens"]  # at least the answer's
            shown = dict(zip(page.locator("#usage th").all_inner_texts(), page.locator("#usage td").all_inner_texts(),
                             strict=True))  # fmt: skip
            assert shown == {name.replace("_", " "): str(value) for name, value in reported.items()}

            page.check("#ask-stream")  # the same answer as Server-Sent Events, token by token
            streamed = submit(page)
            assert streamed.headers["content-type"].startswith("text/event-stream")
            events = [block.split("\n") for block in streamed.text().strip().split("\n\n")]
            names = [lines[0].removeprefix("event: ") for lines in events]
            assert names[0] == "retrieval" and names[-1] == "answer" and names.count("token") > 1
            final = json.loads(events[-1][1].removeprefix("data: "))
            assert page.inner_text("#answer-text") == final["answer"] == "Ada Park [1]."
            assert page.locator("#citations a.citation").count() == len(final["citations"]) == 1
            assert page.inner_text("#answer-meta").startswith(f"llm:{MODEL}")
            watch.assert_clean()
        finally:
            page.context.close()


def ask_with_llm(page: Page, url: str) -> dict[str, Any]:
    """Open the UI, ask QUESTION with the LLM answerer, and return the /v1/query response."""
    load_ui(page, url)
    page.fill("#ask-question", QUESTION)
    page.select_option("#ask-answerer", "llm")
    body: dict[str, Any] = submit(page).json()
    return body


def test_unsupported_sentences_are_marked(chromium: Browser, demo_settings: Settings, openai_stub: OpenAIStub) -> None:
    """The answer check reaches the page: the sentence the evidence does not support is marked, the other is not."""
    planted = "Ada Park was born in Reykjavik in 1979 [1]."
    with serve(create_app(with_stub_llm(demo_settings, openai_stub, text(f"Ada Park [1]. {planted}")))) as url:
        page, watch = open_page(chromium)
        try:
            body = ask_with_llm(page, url)
            assert [s["supported"] for s in body["check"]["sentences"]] == [True, False]
            assert page.locator("#answer-text .sentence.unsupported").all_inner_texts() == [planted]
            assert page.locator("#answer-text .sentence:not(.unsupported)").all_inner_texts() == ["Ada Park [1]."]
            assert "check: 1 of 2 sentences unsupported" in page.inner_text("#answer-meta")
            watch.assert_clean()
        finally:
            page.context.close()


def test_an_llm_failure_is_shown_as_such(chromium: Browser, demo_settings: Settings, openai_stub: OpenAIStub) -> None:
    """A model that keeps failing gives the abstention, marked as the LLM's failure with its reason, not as an
    abstention for want of evidence (stage 1's name call still works: only the answer call fails)."""

    def overloaded(request: dict[str, Any]) -> StubReply:
        return StubReply(status=503, body={"error": {"message": "model overloaded"}})

    with serve(create_app(with_stub_llm(demo_settings, openai_stub, overloaded))) as url:
        page, watch = open_page(chromium)
        try:
            body = ask_with_llm(page, url)
            assert body["answer_status"] == "llm_failed" and body["llm_error"]
            assert page.inner_text("#answer-text") == ABSTENTION
            assert "llm-failed" in (page.get_attribute("#answer-text", "class") or "")
            assert f"the LLM failed: {body['llm_error']}" in page.inner_text("#answer-meta")
            watch.assert_clean()
        finally:
            page.context.close()


def test_api_docs_render_offline(ui: tuple[Page, PageWatch], base_url: str) -> None:
    page, watch = ui
    page.goto(f"{base_url}/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    assert page.locator(".swagger-ui .info .title").inner_text().startswith("graphwire")
    page.locator(".opblock-summary-path", has_text="/v1/query").first.wait_for()
    page.goto(f"{base_url}/redoc")
    page.locator("h1", has_text="graphwire").first.wait_for()
    assert page.get_by_text("/v1/query").count() > 0
    watch.assert_clean()


def test_documents_filter_by_source_and_page_through(ui: tuple[Page, PageWatch], base_url: str) -> None:
    articles = [json.loads(line) for line in (DEMO / "articles.jsonl").read_text(encoding="utf-8").splitlines()]
    harbor = sorted(a["title"] for a in articles if a["source"] == "Harbor Times")
    page, watch = ui
    load_ui(page, base_url, "documents")
    caption = page.locator("#documents-caption")
    expect(caption).to_have_text(f"1\u201320 of {len(articles)} documents")
    page.click("#documents-next")
    expect(caption).to_have_text(f"21\u2013{len(articles)} of {len(articles)} documents")
    assert page.is_disabled("#documents-next") and not page.is_disabled("#documents-prev")
    page.fill("#filter-source", "Harbor Times")
    page.press("#filter-source", "Enter")
    expect(caption).to_have_text(f"1\u2013{len(harbor)} of {len(harbor)} documents")
    titles = page.locator("#documents tbody tr td:first-child").all_inner_texts()
    assert sorted(titles) == harbor
    watch.assert_clean()


def test_the_workspace_picker_switches_this_tab_to_another_workspace(
    chromium: Browser, demo_settings: Settings, session_graph: Graph
) -> None:
    """With a second workspace the page offers a choice; the chosen one is what every view reads, for this tab only;
    once it is deleted, the tab falls back to the server's."""
    other = "team-ui"
    record = UPLOADED | {"published_at": UPLOADED["published_at"][:10]}  # a corpus record's date
    ingest_documents(session_graph.in_workspace(other), demo_settings.for_workspace(other), [record])
    with serve(create_app(demo_settings)) as url:
        page, watch = open_page(chromium)
        load_ui(page, url, "documents")
        picker = page.locator("#workspace-select")
        expect(page.locator("#workspace-picker")).to_be_visible()
        assert picker.locator("option").all_inner_texts() == ["default", other]
        expect(page.locator("#documents-caption")).to_have_text(re.compile(r"of 22 documents$"))
        expect(page.locator("#graph-stats")).to_have_text(re.compile(r"^22 documents"))  # no request left open
        picker.select_option(other)
        page.wait_for_selector("body[data-ready='true']")
        expect(page.locator("#documents-caption")).to_have_text("1\u20131 of 1 documents")
        expect(page.locator("#graph-stats")).to_have_text(re.compile(r"^1 documents"))
        assert picker.input_value() == other
        page.click("[data-view-link='ask']")
        ask(page, NEW_QUESTION)
        assert page.inner_text("#answer-text") == "Mira Holt"  # only that workspace knows it

        fresh, fresh_watch = open_page(chromium)  # another tab starts in the server's workspace
        load_ui(fresh, url, "documents")
        expect(fresh.locator("#documents-caption")).to_have_text(re.compile(r"of 22 documents$"))

        assert page.request.delete(f"{url}/v1/workspaces/{other}").status == 202
        deadline = time.monotonic() + 60
        while page.request.get(f"{url}/v1/workspaces/{other}").status != 404:  # the delete finishes behind its 202
            assert time.monotonic() < deadline, "the delete did not finish"
            time.sleep(0.2)
        page.reload()  # its choice is gone: back to the server's workspace
        page.wait_for_selector("body[data-ready='true']")
        page.click("[data-view-link='documents']")
        expect(page.locator("#documents-caption")).to_have_text(re.compile(r"of 22 documents$"))
        expect(page.locator("#workspace-picker")).to_be_hidden()
        watch.assert_clean()
        fresh_watch.assert_clean()
        for tab in (page, fresh):
            tab.context.close()


UPLOADED = {  # a chief executive for a demo company that has none in the demo corpus
    "title": "Stahlwerk Group names Mira Holt chief executive",
    "source": "Harbor Times",
    "published_at": "2026-04-02T09:00:00+00:00",
    "url": "https://demo.graphwire.dev/harbor-times/stahlwerk-holt",
    "body": "Stahlwerk Group CEO Mira Holt said the Munich company would keep investing in drone makers. "
    "Holt previously ran the group's steel business.",
}
NEW_QUESTION = "Who is the chief executive of Stahlwerk Group?"


def test_documents_upload_a_file_watch_the_job_ask_and_delete(
    ui: tuple[Page, PageWatch], base_url: str, tmp_path: Path
) -> None:
    """Runs last in this module: it adds a document to the demo graph and deletes it again."""
    page, watch = ui
    load_ui(page, base_url)
    ask(page, NEW_QUESTION)
    assert page.inner_text("#answer-text") == ABSTENTION
    upload = tmp_path / "new.jsonl"
    upload.write_text(json.dumps(UPLOADED) + "\n" + json.dumps({"title": "No body here"}) + "\n", encoding="utf-8")
    page.click("[data-view-link='documents']")
    caption = page.locator("#documents-caption")
    expect(caption).to_have_text(re.compile(r"of 22 documents$"))
    page.set_input_files("#upload-file", str(upload))
    page.click("#upload-submit")
    page.wait_for_selector("#job-state[data-state='succeeded']", timeout=180_000)
    assert "of 2 documents" in page.inner_text("#job-counts")
    assert "record 1 (No body here)" in page.inner_text("#job-failures")
    expect(caption).to_have_text(re.compile(r"of 23 documents$"), timeout=60_000)
    row = page.locator("#documents tbody tr", has_text=UPLOADED["title"])
    assert "Harbor Times" in row.inner_text() and "2026-04-02" in row.inner_text()

    page.click("[data-view-link='ask']")
    ask(page, NEW_QUESTION)
    assert page.inner_text("#answer-text") == "Mira Holt"
    assert UPLOADED["title"] in page.locator("#citations a.citation").all_inner_texts()

    page.click("[data-view-link='documents']")
    row = page.locator("#documents tbody tr", has_text=UPLOADED["title"])
    row.get_by_role("button", name=f"Delete {UPLOADED['title']}").click()
    row.get_by_role("button", name=f"Delete {UPLOADED['title']}").click()  # the second press confirms
    expect(caption).to_have_text(re.compile(r"of 22 documents$"), timeout=60_000)  # the delete waits for the writer
    assert row.count() == 0 and "Deleted" in page.inner_text("#documents-status")
    assert caption.inner_text().startswith("1\u2013")
    page.click("[data-view-link='ask']")
    ask(page, NEW_QUESTION)
    assert page.inner_text("#answer-text") == ABSTENTION  # what only that document supported went with it
    watch.assert_clean()
