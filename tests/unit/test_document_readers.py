"""Each bad document is one clear line in the load errors while the rest of a folder still loads: encrypted,
scanned and truncated PDFs, truncated DOCX and zip bombs, HTML without an article, files over the size limit, mixed
encodings; a folder mixing formats is read by content, and every chunk of a PDF, DOCX, HTML or Markdown document
carries its page or heading path."""

from __future__ import annotations

from pathlib import Path

from support.documents import encrypt_pdf, make_docx, make_pdf, make_zip_bomb, news_page

from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.formats.base import LoadOptions
from graphwire.ingest.loaders import LoadResult, load_articles

LONG = " ".join(f"Sentence number {n} of the harbour report says the quay was repaired." for n in range(40))


def _reasons(result: LoadResult) -> dict[str, str]:
    return {Path(e.location).name: e.reason for e in result.errors}


def test_bad_documents_are_one_line_each_and_the_good_ones_load(tmp_path: Path) -> None:
    good_docx = make_docx([("h1", "Results"), ("p", "Revenue grew."), ("h2", "Revenue"), ("p", LONG)], title="Review")
    files = {
        "report.pdf": make_pdf([["First page text."], ["Second page text."]], title="Annual report"),
        "locked.pdf": encrypt_pdf(make_pdf([["Secret page."]])),
        "scan.pdf": make_pdf([[], []]),
        "cut.pdf": make_pdf([["Some text."]])[:120],
        "review.docx": good_docx,
        "cut.docx": good_docx[: len(good_docx) // 2],
        "menu.html": b"<!DOCTYPE html><html><body><nav>Home | News | Sport</nav><footer>(c)</footer></body></html>",
        "latin.txt": "Caf\xe9 au lait, d\xe9j\xe0 vu.".encode("latin-1"),
        "mixed.html": b'<html><head><meta charset="utf-8"></head><body><p>caf\xc3\xa9 and caf\xe9</p></body></html>',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    result = load_articles(tmp_path)
    assert sorted(a.title for a in result.articles) == ["Annual report", "Review"]
    reasons = _reasons(result)
    assert reasons["locked.pdf"].startswith("encrypted PDF")
    assert reasons["scan.pdf"] == "no text layer on any of its 2 pages (scanned?): OCR is not configured"
    assert reasons["cut.pdf"].startswith("corrupt or truncated PDF")
    assert reasons["cut.docx"].startswith("corrupt or truncated DOCX")
    assert reasons["menu.html"].startswith("no article text found")
    assert reasons["latin.txt"].startswith("not valid UTF-8 at byte 3")
    assert reasons["mixed.html"].startswith("not valid utf-8 at byte")
    assert all("\n" not in reason for reason in reasons.values())


def test_a_zip_bomb_is_refused_from_its_headers(tmp_path: Path) -> None:
    base = make_docx([("p", "A normal paragraph.")])
    bomb = tmp_path / "bomb.docx"
    bomb.write_bytes(make_zip_bomb(base, entry_bytes=20_000_000))  # 20 MB of zeros in about 20 KB
    [error] = load_articles(bomb).errors
    assert "refused as a zip bomb" in error.reason
    [error] = load_articles(bomb, LoadOptions(docx_max_unpacked_bytes=10_000_000)).errors
    assert "over the limit of 10000000 (DOCX_MAX_UNPACKED_BYTES)" in error.reason


def test_a_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "big.pdf"
    path.write_bytes(make_pdf([[LONG[:80]]] * 5))
    [error] = load_articles(path, LoadOptions(document_max_bytes=500)).errors
    assert error.reason.endswith("over the limit of 500 (DOCUMENT_MAX_BYTES)")


def test_formats_are_told_by_content_and_chunks_carry_locators(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(make_pdf([[LONG[i : i + 90] for i in range(0, 1400, 90)], ["Last page."]]))
    (tmp_path / "saved-page.bin").write_text(news_page("Quay repaired", [("Works", LONG), ("Costs", LONG)]))
    (tmp_path / "notes.md").write_text(f"# Notes\n\n{LONG}\n\n## Method\n\n{LONG}\n", encoding="utf-8")
    (tmp_path / "corpus.jsonl").write_text('{"title": "Plain", "body": "Plain text record."}\n', encoding="utf-8")
    result = load_articles(tmp_path)
    assert result.errors == []
    by_title = {a.title: a for a in result.articles}
    assert set(by_title) == {
        "Quay repaired",
        LONG[:90].strip(),
        "Notes",
        "Plain",
    }  # a PDF without a title: its first line
    page = by_title["Quay repaired"]
    assert (page.source, page.author, str(page.published_at)) == ("Harbour Times", "Ada Byline", "2024-03-15")
    assert "cookies" not in page.body and "Home" not in page.body and "Related" not in page.body

    def locators(title: str) -> list[str | None]:
        return [c.locator for c in chunk_article(by_title[title])]

    assert locators(LONG[:90].strip()) == ["p. 1", "p. 1", "p. 2"]
    assert set(locators("Quay repaired")) == {"Works", "Costs"}
    assert set(locators("Notes")) == {"Notes", "Notes > Method"}
    assert locators("Plain") == [None]
    for chunk in chunk_article(by_title["Notes"]):  # offsets point at the chunk's own text in the body
        assert chunk.char_start is not None and chunk.char_end is not None
        assert chunk.text.endswith(by_title["Notes"].body[chunk.char_start : chunk.char_end])
