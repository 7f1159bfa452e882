"""PDF, DOCX and HTML documents ingested end to end into real Neo4j and Chroma through the documents API (a posted
file, and a URL fetched from a loopback HTTP server the test runs), then a question answered by the extractive
answerer in `joint` mode with citations whose locators name the page or the section the answer came from."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.documents import encrypt_pdf, make_docx, make_pdf, news_page
from support.jobs import wait_for_job

from graphwire.app.main import create_app
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
DEMO_ROUND = (
    "Paradigm Ventures invested $40 million in Lumen Labs, a Berlin-based startup that designs low-power inference "
    "chips. The round values the company at about $310 million, according to two people familiar with the deal. "
    "Lumen Labs was founded by Ada Park and Felix Brandt in 2021 after both left a university research group."
)
DEMO_CEO = (
    "Lumen Labs CEO Ada Park said the company would ship samples of its first chip, the Lumen L1, to customers in "
    "June. Park, who previously ran the hardware group at a robotics company, took the top job this week. Felix "
    "Brandt, a co-founder of Lumen Labs, becomes chief technology officer."
)
QUESTION = "Which company invested in Lumen Labs?"
ANSWER = "Paradigm Ventures"
FILLER = " ".join(
    f"The committee met for the {n}th time this season and approved the minutes of its last meeting without changes."
    for n in range(4, 16)
)  # about 1,300 characters with no names in them: it keeps each demo passage in a chunk of its own


class _Pages(BaseHTTPRequestHandler):
    pages: dict[str, tuple[str, bytes]] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.startswith("/moved"):
            self.send_response(302)
            self.send_header("Location", "/harbour")
            self.end_headers()
            return
        content_type, body = self.pages.get(self.path, ("text/plain", b"not found"))
        self.send_response(200 if self.path in self.pages else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


@pytest.fixture
def site() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 serving a news page at /harbour (and a redirect to it at /moved)."""
    page = news_page(
        "Lumen Labs picks its chief executive",
        [("Leadership", f"{DEMO_CEO} {FILLER}"), ("Funding", f"{DEMO_ROUND} {FILLER}")],
        site="Circuit Weekly", author="Nora Quill", published="2026-03-04T09:00:00+00:00",
    )  # fmt: skip
    _Pages.pages = {"/harbour": ("text/html; charset=utf-8", page.encode("utf-8"))}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def client(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> Iterator[TestClient]:
    settings = neo4j_settings.model_copy(
        update={
            "chroma_path": tmp_path / "chroma",
            "ingest_state_path": tmp_path / "state",
            "fetch_allowed_hosts": "127.0.0.1",  # the test's own server; test_fetch_guard checks the default
        }
    )
    with TestClient(create_app(settings)) as client:
        yield client


def ask(client: TestClient) -> dict[str, Any]:
    body = {"question": QUESTION, "mode": "joint", "answerer": "extractive"}
    response = client.post("/v1/query", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _lines(text: str) -> list[str]:
    return textwrap.wrap(text, 90)


def test_a_pdf_is_answered_with_the_page_of_the_answer(client: TestClient) -> None:
    pdf = make_pdf(
        [_lines(FILLER), _lines(DEMO_CEO + " " + FILLER), _lines(DEMO_ROUND + " " + FILLER)],
        title="Lumen Labs annual report", created="D:20260304090000",
    )  # fmt: skip
    posted = client.post("/v1/documents", files={"file": ("lumen-report.pdf", pdf, "application/pdf")})
    assert posted.status_code == 202, posted.text
    job = wait_for_job(client, posted.json()["job_id"])
    assert job["state"] == "succeeded" and job["failures"] == [], job

    answer = ask(client)
    assert answer["answer"] == ANSWER, answer
    locators = {c["locator"] for c in answer["citations"]}
    assert "p. 3" in locators and locators <= {"p. 2", "p. 3"}  # the investment's page; never the filler page
    [item] = client.get("/v1/documents").json()["items"]
    assert item["title"] == "Lumen Labs annual report" and item["published"] == "2026-03-04"


def test_a_docx_is_answered_with_the_section_of_the_answer(client: TestClient) -> None:
    docx = make_docx(
        [("h1", "People"), ("h2", "Chief executive"), ("p", DEMO_CEO), ("p", FILLER),
         ("table", "Role|Name;CEO|Ada Park"), ("h1", "Company review"), ("h2", "Funding"), ("p", DEMO_ROUND),
         ("p", FILLER)],
        title="Lumen Labs review", author="Owen Marsh",
    )  # fmt: skip
    posted = client.post("/v1/documents", files={"file": ("review.docx", docx, "application/octet-stream")})
    job = wait_for_job(client, posted.json()["job_id"])
    assert job["state"] == "succeeded" and job["failures"] == [], job

    answer = ask(client)
    assert answer["answer"] == ANSWER, answer
    locators = {c["locator"] for c in answer["citations"]}
    assert "Company review > Funding" in locators, answer["citations"]
    assert locators <= {"Company review > Funding", "People > Chief executive"}


def test_a_url_is_fetched_and_answered_with_the_section_of_the_answer(client: TestClient, site: str) -> None:
    posted = client.post("/v1/documents", json={"urls": [f"{site}/moved", f"{site}/missing"]})
    assert posted.status_code == 202, posted.text
    job = wait_for_job(client, posted.json()["job_id"])
    assert job["state"] == "succeeded", job
    [failure] = job["failures"]
    assert failure["position"] == 1 and "HTTP 404" in failure["reason"]

    answer = ask(client)
    assert answer["answer"] == ANSWER, answer
    locators = {c["locator"] for c in answer["citations"]}
    assert "Funding" in locators and locators <= {"Leadership", "Funding"}, answer["citations"]
    [item] = client.get("/v1/documents").json()["items"]
    assert (item["title"], item["source"], item["published"]) == (
        "Lumen Labs picks its chief executive", "Circuit Weekly", "2026-03-04",
    )  # fmt: skip
    assert item["url"] == f"{site}/moved"


def test_the_cli_ingests_a_document_folder_and_reports_each_bad_file_in_one_line(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path, site: str
) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "report.pdf").write_bytes(make_pdf([_lines(DEMO_ROUND)], title="Lumen Labs funding"))
    (folder / "locked.pdf").write_bytes(encrypt_pdf(make_pdf([["A secret page."]])))
    (folder / "scan.pdf").write_bytes(make_pdf([[]]))
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.neo4j_uri,
        "NEO4J_PASSWORD": neo4j_settings.resolved_neo4j_password(),
        "INGEST_STATE_PATH": str(tmp_path / "state"),
        "STORE_LOCK_DIR": str(tmp_path / "locks"),
        "COLUMNS": "300",
    }

    def ingest(source: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphwire.cli.main", "ingest", source, "--no-vectors"], env=env,
                              cwd=REPO, capture_output=True, text=True, timeout=240)  # fmt: skip

    run = ingest(str(folder))
    out = run.stdout + run.stderr
    assert run.returncode == 3, out[-3000:]  # files skipped, the others ingested
    assert "Traceback" not in out
    assert f"skipped {folder / 'locked.pdf'}: encrypted PDF: it needs a password" in out
    assert (
        f"skipped {folder / 'scan.pdf'}: no text layer on any of its 1 pages (scanned?): OCR is not configured" in out
    )
    [row] = graph.read("check/chunk_locators")
    assert (row["title"], row["locator"], row["start"]) == ("Lumen Labs funding", "p. 1", 0)

    refused = ingest(f"{site}/harbour")  # FETCH_ALLOWED_HOSTS unset: the test's own loopback server is refused
    assert refused.returncode == 3, refused.stdout[-2000:]
    assert f"skipped {site}/harbour: refused: 127.0.0.1 resolves to 127.0.0.1" in refused.stdout
