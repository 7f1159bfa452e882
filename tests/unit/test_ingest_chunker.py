"""Chunker: size, overlap, sentence boundaries, the source prefix, stable ids."""

from __future__ import annotations

from datetime import date

from graphwire.core.documents import Article, strip_prefix
from graphwire.ingest.chunker import chunk_article, join_pieces, split_text

SENTENCES = [f"Sentence number {i} says something about company {i} and its plans for the year." for i in range(60)]
BODY = " ".join(SENTENCES)


def _article(body: str = BODY, **kw: object) -> Article:
    fields: dict[str, object] = {
        "title": "Title", "body": body, "source": "The Verge", "published_at": date(2023, 9, 28), "url": "https://x.test/a"
    }  # fmt: skip
    return Article.model_validate(fields | kw)


def test_windows_respect_size_and_end_at_sentences() -> None:
    pieces = split_text(BODY, 1000, 150)
    assert len(pieces) > 4
    assert all(len(p) <= 1000 for p in pieces)
    assert all(p.endswith(".") for p in pieces)
    assert all(p.startswith("Sentence") for p in pieces)  # starts at a sentence start too


def test_consecutive_windows_overlap_and_cover_everything() -> None:
    pieces = split_text(BODY, 1000, 150)
    for before, after in zip(pieces, pieces[1:], strict=False):
        assert after[:40] in before  # the next window starts inside the previous one
    for sentence in SENTENCES:
        assert any(sentence in p for p in pieces)


def test_joining_the_windows_gives_the_text_back() -> None:
    """What a document's text is read back from (the MCP tool `get_document`): its chunks, overlaps kept once."""
    words = " ".join(f"word{i}" for i in range(400))
    for text in (BODY, words, "One short sentence.", BODY.replace(". ", ".\n\n")):
        for size, overlap in ((1000, 150), (200, 60), (120, 40)):
            assert join_pieces(split_text(text, size, overlap)) == text.strip(), (size, overlap)
    assert join_pieces([]) == ""


def test_long_unbroken_text_still_splits() -> None:
    text = "word " * 600
    pieces = split_text(text.strip(), 1000, 150)
    assert all(len(p) <= 1000 for p in pieces) and len(pieces) >= 3


def test_prefix_and_stable_content_ids() -> None:
    chunks = chunk_article(_article())
    assert chunks[0].text.startswith("[Source: The Verge | Title: Title | Published: 2023-09-28]\n")
    assert strip_prefix(chunks[0].text).startswith("Sentence number 0")
    assert [c.id for c in chunks] == [c.id for c in chunk_article(_article())]
    changed = chunk_article(_article(body=BODY.replace("number 59", "number fifty-nine")))
    assert changed[0].id == chunks[0].id and changed[-1].id != chunks[-1].id
    assert {c.index for c in chunks} == set(range(len(chunks)))


def test_unknown_source_and_date_in_prefix_and_namesakes_stay_apart() -> None:
    one = _article(source=None, published_at=None, url=None, body="First passage.")
    two = _article(source=None, published_at=None, url=None, body="Second passage.")
    assert chunk_article(one)[0].text.startswith("[Source: unknown | Title: Title | Published: unknown]")
    assert one.doc_id != two.doc_id
