"""How a distributed ingest splits the work (ingest/distributed.py): the writer's own embedding groups, in order,
dealt to partitions of near-equal size."""

from __future__ import annotations

from graphwire.core.clients.chunk_store import WRITE_BATCH
from graphwire.core.documents import Article
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.distributed import deal, units
from graphwire.ingest.pipeline import IngestOptions


def _article(i: int, paragraphs: int = 1) -> Article:
    body = " ".join(f"Sentence {i}.{p} says that Company {i} met Person {p} in Berlin." for p in range(paragraphs))
    return Article(title=f"Report {i}", body=body * 3, source="Wire", url=f"https://example.org/{i}")


def test_units_follow_the_writers_batches_and_embedding_groups() -> None:
    articles = [_article(i, paragraphs=120) for i in range(30)]
    options = IngestOptions(batch_documents=16, progress=False)
    found = units(articles, options)
    chunks = [chunk_article(a, options.chunk_size, options.chunk_overlap) for a in articles]
    expected = []
    for start in range(0, len(chunks), 16):
        batch = [c for doc in chunks[start : start + 16] for c in doc]
        expected += [batch[s : s + WRITE_BATCH] for s in range(0, len(batch), WRITE_BATCH)]
    assert [[c.id for c in u] for u in found] == [[c.id for c in u] for u in expected]
    assert max(map(len, found)) == WRITE_BATCH and len(found) > len(range(0, 30, 16))


def test_units_take_the_first_record_of_an_id_and_honour_the_limit() -> None:
    articles = [_article(0), _article(1), _article(0), _article(2)]
    limited = units(articles, IngestOptions(limit=3, progress=False))
    assert {c.document_id for u in limited for c in u} == {articles[0].doc_id, articles[1].doc_id}
    assert sum(map(len, units(articles, IngestOptions(progress=False)))) == sum(
        len(chunk_article(a, 1000, 150)) for a in articles[:2] + articles[3:]
    )


def test_deal_keeps_order_and_balances() -> None:
    parts = [[_chunk_stub(i)] * size for i, size in enumerate([5, 5, 5, 5, 1, 9])]
    dealt = deal(parts, 3)
    assert [u for p in dealt for u in p] == parts  # every unit once, in order
    assert len(dealt) == 3 and [sum(map(len, p)) for p in dealt] == [10, 10, 10]
    assert deal(parts, 50) == [[u] for u in parts]  # never more partitions than units
    assert deal([], 4) == []


def _chunk_stub(i: int) -> object:
    return i
