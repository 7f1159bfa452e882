"""RSS and Atom feeds read into one document per entry: recognised by content, the entry's metadata kept, the linked
page fetched (from a loopback server the test runs) when the feed carries only a summary, and each bad feed one clear
line with nothing loaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.documents import news_page
from support.feeds import FeedSite, loopback_options, rss, rss_item

from graphwire.ingest.formats.base import DocumentError, LoadOptions
from graphwire.ingest.formats.dispatch import sniff, sniff_file
from graphwire.ingest.formats.feed import looks_like_feed, parse_feed
from graphwire.ingest.loaders import load_articles

FULL = "<p>Paradigm Ventures invested $40 million in Lumen Labs, a Berlin chip designer, on Tuesday.</p>" * 2
ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<!-- generated -->
<feed xmlns="http://www.w3.org/2005/Atom"><title>Harbour Times</title><id>urn:ht</id>
<entry><title>Quay reopened</title><id>urn:ht:1</id><link href="/quay"/><updated>2026-03-05T10:00:00Z</updated>
<author><name>Nora Quill</name></author><source><title>Port Gazette</title></source>
<content type="html">&lt;h2&gt;Works&lt;/h2&gt;&lt;p>The old quay reopened after a year of repairs by the harbour
crew.&lt;/p></content>
</entry></feed>"""


@pytest.fixture(scope="module")
def site() -> Iterator[FeedSite]:
    with FeedSite() as site:
        yield site


def test_feeds_are_recognised_by_their_root_element_whatever_their_name() -> None:
    feed = rss("Circuit Weekly", [])
    assert looks_like_feed(feed) and looks_like_feed(ATOM) and looks_like_feed(b'<rdf:RDF xmlns:rdf="x">')
    assert sniff(feed, "news.txt") == "feed" and sniff(ATOM, "download") == "feed"
    assert not looks_like_feed(news_page("A page", [("Part", "Text of the page.")]).encode())
    assert sniff(b"<?xml version='1.0'?><note/>", "note.xml") is None
    assert sniff(b"whatever", "", "application/rss+xml") == "feed"  # then refused by the reader, below


def test_an_entry_keeps_its_link_outlet_date_author_and_sections(tmp_path: Path) -> None:
    path = tmp_path / "misnamed.txt"
    path.write_bytes(ATOM)
    assert sniff_file(path) == "feed"
    [article] = load_articles(path).articles
    assert (article.title, article.source, article.author) == ("Quay reopened", "Port Gazette", "Nora Quill")
    assert article.published_at is not None and article.published_at.isoformat() == "2026-03-05"
    assert article.url == "/quay"  # no base to resolve against in a local file
    assert article.body.startswith("Works.\n\nThe old quay reopened") and article.segments[0].label == "Works"


def test_full_text_is_used_and_a_summary_only_entry_brings_its_linked_page(site: FeedSite) -> None:
    story = "Ada Park becomes chief executive of Lumen Labs, the company said on Monday in Berlin."
    page = site.put("/story", news_page("Lumen Labs picks a chief", [("Leadership", story)], site="Circuit"))
    feed = site.put("/rss", rss("Circuit Weekly", [
        rss_item("Paradigm backs Lumen", f"{site.url}/full", published="2026-03-04T09:00:00+00:00", content=FULL,
                 summary="Short."),
        rss_item("Lumen's new chief", page, published="2026-03-05T09:00:00+00:00", summary="Ada Park takes over."),
    ]), "application/rss+xml")  # fmt: skip
    loaded = load_articles(feed, loopback_options())
    assert loaded.errors == []
    full, linked = loaded.articles
    assert full.body.startswith("Paradigm Ventures invested") and full.source == "Circuit Weekly"
    assert site.gets.get("/full") is None  # the feed carried the text: the link is not fetched
    assert (linked.title, linked.url, str(linked.published_at)) == ("Lumen's new chief", page, "2026-03-05")
    assert "Ada Park becomes chief executive" in linked.body and linked.segments[0].label == "Leadership"
    assert linked.source == "Circuit Weekly"  # the feed names the outlet, not the page


def test_an_unreachable_linked_page_falls_back_to_the_summary_and_undated_entries_load(site: FeedSite) -> None:
    feed = site.put("/undated", rss("Circuit Weekly", [
        rss_item("Gone", f"{site.url}/missing", summary="<b>Lumen Labs</b> moved to Munich."),
        rss_item("Empty", f"{site.url}/missing-too"),
    ]), "application/rss+xml")  # fmt: skip
    loaded = load_articles(feed, loopback_options())
    [article] = loaded.articles
    assert (article.body, article.published_at) == ("Lumen Labs moved to Munich.", None)
    [error] = loaded.errors
    assert error.location == f"{feed} entry 2" and error.title == "Empty"
    assert error.reason == "no text: the entry carries no content or summary; the linked page: HTTP 404 from " + (
        site.url.removeprefix("http://")
    )
    assert parse_feed(site.pages["/undated"][1]).undated == 2


@pytest.mark.parametrize(
    ("path", "options", "reason"),
    [
        ("/not-xml", loopback_options(), "not an RSS or Atom feed (not XML: syntax error)"),
        ("/loop", loopback_options(), "more than 3 redirects (FETCH_MAX_REDIRECTS)"),
        ("/slow", loopback_options(), "timed out after 1 s (FETCH_TIMEOUT_S)"),
        ("/rss", loopback_options(document_max_bytes=100), "over the limit of 100 (DOCUMENT_MAX_BYTES)"),
        ("/rss", LoadOptions(), "refused: 127.0.0.1 resolves to 127.0.0.1, a loopback, private or link-local"),
        ("/plain-xml", loopback_options(), "an application/xml answer that is neither an RSS or Atom feed nor a page"),
    ],
)
def test_a_bad_feed_is_one_line_and_nothing_is_loaded(
    site: FeedSite, path: str, options: LoadOptions, reason: str
) -> None:
    site.put("/not-xml", "this is not XML at all", "application/rss+xml")
    site.put("/plain-xml", "<?xml version='1.0'?><note>hi</note>", "application/xml")
    site.put("/rss", rss("Circuit Weekly", [rss_item("One", f"{site.url}/one", content=FULL)]), "application/rss+xml")
    loaded = load_articles(f"{site.url}{path}", options)
    assert loaded.articles == []
    [error] = loaded.errors
    assert reason in error.reason, error.reason


def test_entities_are_never_expanded_into_a_bomb() -> None:
    lol = "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10))
    bomb = (f'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY lol0 "lol">{lol}]><rss version="2.0"><channel>'
            "<title>Bomb</title><item><title>&lol9;</title><description>x</description></item>"
            "</channel></rss>")  # fmt: skip
    try:
        feed = parse_feed(bomb.encode())
    except DocumentError:
        return  # refused outright: as good
    assert all(len(entry.title or "") < 10_000 for entry in feed.entries)


def test_a_posted_feed_url_is_one_record_per_entry_at_the_url_position(site: FeedSite) -> None:
    from graphwire.app.document_files import urls_upload

    feed = site.put("/posted.xml", rss("Circuit Weekly", [
        rss_item("Lumen funded", f"{site.url}/a", content=FULL), rss_item("Empty", f"{site.url}/missing"),
        rss_item("Lumen again", f"{site.url}/b", content=FULL.replace("Tuesday", "Friday")),
    ]), "application/rss+xml")  # fmt: skip
    upload = urls_upload(["not a url", feed], loopback_options())
    assert upload.positions == [1, 1] and [r["title"] for r in upload.records] == ["Lumen funded", "Lumen again"]
    assert [(f.position, f.title) for f in upload.failures] == [(0, None), (1, "Empty")]
    assert upload.failures[1].reason.startswith("entry 2: no text: the entry carries no content or summary")
