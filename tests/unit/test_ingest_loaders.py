"""Loaders: the three input formats, and bad records reported and skipped while the run goes on."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from graphwire.ingest.loaders import load_articles, parse_published, split_front_matter

GOOD = {
    "title": "FTX trial opens",
    "author": "A. Writer",
    "source": "The Verge",
    "published_at": "2023-09-28T12:00:00+00:00",
    "category": "technology",
    "url": "https://example.test/ftx",
    "body": "Sam Bankman-Fried, the former CEO of FTX, went on trial.",
}


def test_corpus_json_list_reads_upstream_fields(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps([GOOD, {**GOOD, "url": None, "source": None, "published_at": None}]))
    result = load_articles(path)
    assert result.errors == []
    first, second = result.articles
    assert first.published_at == date(2023, 9, 28)
    assert first.doc_id == "https://example.test/ftx"
    assert second.source is None and second.published_at is None
    assert len(second.doc_id) == 32  # no url: a content hash


def test_bad_records_are_reported_with_index_title_and_reason(tmp_path: Path) -> None:
    records = [
        GOOD,
        {"title": "No body", "body": ""},
        {"title": "Bad date", "body": "text", "published_at": "not a date at all"},
        "just a string",
        {**GOOD, "url": "https://example.test/other", "title": "Still fine"},
    ]
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(records))
    result = load_articles(path)
    assert [a.title for a in result.articles] == ["FTX trial opens", "Still fine"]
    by_location = {e.location: e for e in result.errors}
    assert set(by_location) == {"corpus.json#1", "corpus.json#2", "corpus.json#3"}
    assert by_location["corpus.json#1"].title == "No body" and "body" in by_location["corpus.json#1"].reason
    assert "published_at" in by_location["corpus.json#2"].reason
    assert "expected an object" in by_location["corpus.json#3"].reason


def test_json_lines_skip_invalid_lines(tmp_path: Path) -> None:
    path = tmp_path / "articles.jsonl"
    path.write_text(json.dumps(GOOD) + "\n{not json\n\n" + json.dumps({**GOOD, "url": "u2"}) + "\n")
    result = load_articles(path)
    assert len(result.articles) == 2
    assert [e.location for e in result.errors] == ["articles.jsonl:2"]


def test_folder_of_text_and_markdown_with_front_matter(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\ntitle: Lumen raises\nsource: Circuit Weekly\npublished_at: 2026-03-02\n---\n"
                                   "Paradigm Ventures invested in Lumen Labs.\n")  # fmt: skip
    (tmp_path / "b.txt").write_text("# Heading title\nPlain body without front matter.")
    (tmp_path / "c.md").write_text("---\ntitle: [unclosed\n---\nbody")
    (tmp_path / "ignored.csv").write_text("x,y")
    result = load_articles(tmp_path)
    titles = sorted(a.title for a in result.articles)
    assert titles == ["Heading title", "Lumen raises"]
    lumen = next(a for a in result.articles if a.title == "Lumen raises")
    assert lumen.source == "Circuit Weekly" and lumen.published_at == date(2026, 3, 2)
    assert len(result.errors) == 1 and result.errors[0].location.endswith("c.md")


def test_unknown_file_type_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "corpus.csv"
    path.write_text("a,b")
    with pytest.raises(ValueError, match="expected a .json"):
        load_articles(path)


def test_front_matter_and_dates() -> None:
    assert split_front_matter("no front matter") == ({}, "no front matter")
    assert split_front_matter("---\na: 1\n---\nbody") == ({"a": 1}, "body")
    assert parse_published("2023-10-01T14:00:29+00:00") == date(2023, 10, 1)
    assert parse_published("October 3, 2023") == date(2023, 10, 3)
    assert parse_published(None) is None
