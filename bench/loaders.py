"""Loader throughput: pages per second for PDF, documents per second for HTML and DOCX, entries per second for
RSS feeds, through the one loading interface every surface calls (`ingest.loaders.load_articles`: dispatch by
content, reading, cleaning, segments), then chunking with locators. The documents are generated
(tests/support/documents.py, tests/support/feeds.py): `--pdfs` PDFs of `--pages` pages of about 2,000 characters
each, `--html` news pages of four sections with navigation around the article, `--docx` DOCX files of four headed
sections and a table, and `--feeds` RSS 2.0 feeds of `--entries` entries, each with its full text (two headed
sections, `content:encoded`), so no linked page is fetched. Each is written to a temporary folder and loaded
`--repeats` times; the best run counts.
    .venv/bin/python bench/loaders.py --out bench/loaders
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support.documents import make_docx, make_pdf, news_page  # noqa: E402
from support.feeds import rss, rss_item  # noqa: E402

from bench._results import command_line, machine, write_results  # noqa: E402
from graphwire.ingest.chunker import chunk_article  # noqa: E402
from graphwire.ingest.loaders import load_articles  # noqa: E402

SENTENCE = "The harbour board met on {n} March and agreed to repair the northern quay before the autumn storms. "


def _text(seed: int, chars: int) -> str:
    out, n = [], seed
    while sum(map(len, out)) < chars:
        out.append(SENTENCE.format(n=n % 28 + 1))
        n += 1
    return "".join(out)


def _lines(text: str) -> list[str]:
    return [text[i : i + 90] for i in range(0, len(text), 90)]


def _write(folder: Path, kind: str, count: int, pages: int) -> None:
    folder.mkdir(parents=True)
    for i in range(count):
        if kind == "pdf":
            data = make_pdf([_lines(_text(i + p, 2000)) for p in range(pages)], title=f"Report {i}")
            (folder / f"report-{i}.pdf").write_bytes(data)
        elif kind == "feed":
            items = [
                rss_item(f"Harbour story {i}.{e}", f"https://example.org/{i}/{e}", published="2026-03-04T09:00:00",
                         content="".join(f"<h2>Part {s}</h2><p>{_text(i + e + s, 1000)}</p>" for s in range(2)))
                for e in range(pages)
            ]  # fmt: skip
            (folder / f"feed-{i}.xml").write_bytes(rss(f"Harbour Times {i}", items))
        elif kind == "html":
            sections = [(f"Part {s}", _text(i + s, 1500)) for s in range(4)]
            (folder / f"page-{i}.html").write_text(news_page(f"Harbour story {i}", sections), encoding="utf-8")
        else:
            blocks: list[tuple[str, str]] = []
            for s in range(4):
                blocks += [("h1", f"Section {s}"), ("p", _text(i + s, 1500))]
            blocks.append(("table", "Quay|Cost;North|40;South|25"))
            (folder / f"review-{i}.docx").write_bytes(make_docx(blocks, title=f"Review {i}"))


def _measure(folder: Path, repeats: int) -> dict[str, Any]:
    best = float("inf")
    chunks = articles = 0
    for _ in range(repeats):
        start = time.perf_counter()
        loaded = load_articles(folder)
        chunks = sum(len(chunk_article(a)) for a in loaded.articles)
        best = min(best, time.perf_counter() - start)
        articles = len(loaded.articles)
        assert not loaded.errors, loaded.errors
    return {"seconds": round(best, 3), "documents": articles, "chunks": chunks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdfs", type=int, default=20)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--html", type=int, default=200)
    parser.add_argument("--docx", type=int, default=100)
    parser.add_argument("--feeds", type=int, default=10)
    parser.add_argument("--entries", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "loaders")
    args = parser.parse_args()
    results: dict[str, Any] = {"command": command_line(), "machine": machine(), "load": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="graphwire-bench-loaders-") as tmp:
        for kind, count in (("pdf", args.pdfs), ("html", args.html), ("docx", args.docx), ("feed", args.feeds)):
            _write(Path(tmp) / kind, kind, count, args.entries if kind == "feed" else args.pages)
            results[kind] = _measure(Path(tmp) / kind, args.repeats)
    pdf, html, docx, feed = results["pdf"], results["html"], results["docx"], results["feed"]
    pages = args.pdfs * args.pages
    rows = [
        f"| PDF | {args.pdfs} x {args.pages} pages | {pdf['seconds']} | **{pages / pdf['seconds']:.0f} pages/s** "
        f"| {pdf['chunks']} |",
        f"| HTML | {args.html} pages | {html['seconds']} | **{args.html / html['seconds']:.0f} documents/s** "
        f"| {html['chunks']} |",
        f"| DOCX | {args.docx} files | {docx['seconds']} | **{args.docx / docx['seconds']:.0f} documents/s** "
        f"| {docx['chunks']} |",
        f"| RSS feed | {args.feeds} x {args.entries} entries | {feed['seconds']} | "
        f"**{feed['documents'] / feed['seconds']:.0f} entries/s** | {feed['chunks']} |",
    ]
    markdown = "\n".join([
        "# Loader throughput",
        "",
        f"`{results['command']}` on {results['machine']}, 1-minute load average {results['load']:.1f}; best of "
        f"{args.repeats} runs of `load_articles(folder)` plus chunking.",
        "",
        "| format | input | seconds | throughput | chunks |",
        "|---|---|---|---|---|",
        *rows,
        "",
    ])  # fmt: skip
    write_results(args.out, results, markdown)
    print(markdown)


if __name__ == "__main__":
    main()
