"""Bad records at load: a duplicate id is reported (the first record kept), a missing title or empty body is reported
in words with the record's position, a lone surrogate or a NUL byte is cleaned instead of aborting the file."""

from __future__ import annotations

import json
from pathlib import Path

from graphwire.core.documents import Article
from graphwire.ingest.loaders import load_articles, printable

GOOD = {"title": "Lumen Labs ships", "body": "Lumen Labs shipped its first chip.", "url": "https://example.test/a"}


def _write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_repeated_url_is_reported_and_the_first_record_kept(tmp_path: Path) -> None:
    later = {**GOOD, "title": "A later record with the same url", "body": "Different text."}
    result = load_articles(_write_jsonl(tmp_path / "c.jsonl", [GOOD, {**GOOD, "url": "https://example.test/b"}, later]))
    assert [a.title for a in result.articles] == [GOOD["title"], GOOD["title"]]
    assert len(result.errors) == 1
    error = result.errors[0]
    assert error.location == "c.jsonl:3" and error.title == later["title"]
    assert "duplicate" in error.reason and "c.jsonl:1" in error.reason


def test_missing_title_and_empty_body_are_reported_in_words(tmp_path: Path) -> None:
    records = [{"body": "No title here."}, {"title": "   ", "body": "x"}, {"title": "Empty body", "body": ""},
               {"title": 7, "body": "x"}, GOOD]  # fmt: skip
    result = load_articles(_write_jsonl(tmp_path / "c.jsonl", records))
    reasons = {e.location: e.reason for e in result.errors}
    assert reasons["c.jsonl:1"].startswith("no title") and reasons["c.jsonl:2"].startswith("no title")
    assert reasons["c.jsonl:3"].startswith("no body text")
    assert reasons["c.jsonl:4"] == "the 'title' field must be text, not int"
    assert not any("valid string" in r for r in reasons.values())
    assert [a.title for a in result.articles] == [GOOD["title"]]


def test_a_lone_surrogate_and_nul_bytes_are_cleaned_and_the_file_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "c.json"  # JSON escapes give Python a lone surrogate and a NUL byte
    path.write_text('[{"title": "Caf\\ud800 opens", "body": "Ada\\u0000 Park opened it.", "url": "u1"}, '
                    + json.dumps(GOOD) + "]", encoding="utf-8")  # fmt: skip
    result = load_articles(path)
    assert not result.errors
    first = result.articles[0]
    assert first.title == "Caf\ufffd opens" and first.body == "Ada Park opened it."
    assert first.content_hash and first.doc_id == "u1"  # hashing no longer fails on the surrogate
    assert len(result.articles) == 2


def test_articles_from_any_source_are_cleaned_and_printable_escapes() -> None:
    article = Article(title="A\x00B", body="tab\tand\nnewline kept\x07", source="Wire\ud83d")
    assert (article.title, article.body, article.source) == ("AB", "tab\tand\nnewline kept", "Wire\ufffd")
    assert printable("bad \ud800 and \x1b[31mred") == "bad \\ud800 and \\x1b[31mred"
    printable("\ud800").encode("utf-8")  # what is printed can always be encoded
