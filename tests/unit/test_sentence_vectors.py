"""Sentence vectors beside the chunk store: which sentences are written, that they follow their chunk through upserts,
deletes and a fill of an older store, and how they enter a chunk's dense score."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.chroma_server import on_chroma

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.sentence_vectors import chunk_sentences
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.retrieval.flat.index import SentenceIndex, build_snapshot

PREFIX = "[Source: Wire | Title: Rates | Published: 2023-10-02]\n"
RATES = (
    "The central bank met on Tuesday in the capital. Officials discussed the labour market at length. "
    "The Federal Reserve raised interest rates by a quarter point. AP."
)
DERBY = "The striker scored twice in the north London derby. Arsenal moved to the top of the league."


def _chunk(doc: str, text: str, index: int = 0) -> Chunk:
    return Chunk(id=f"{doc}:{index}", document_id=doc, index=index, text=PREFIX + text, title=doc)


@pytest.fixture(params=["folder", "server"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    return on_chroma(
        request.param, Settings(chroma_path=tmp_path / "chroma", chroma_collection="test_sentences"), request
    )


def _owners(store: ChunkStore) -> list[str]:
    chunks, _ = store.get_all_with_vectors()
    found = store.sentence_vectors({c.id: i for i, c in enumerate(chunks)})
    assert found is not None
    owners, matrix = found
    assert matrix.shape == (len(owners), store.embedder.dimension)
    return [chunks[i].id for i in owners]


def test_sentences_leave_out_the_prefix_and_short_pieces() -> None:
    assert chunk_sentences(_chunk("rates", RATES)) == [
        "The central bank met on Tuesday in the capital.",
        "Officials discussed the labour market at length.",
        "The Federal Reserve raised interest rates by a quarter point.",
    ]


def test_sentences_follow_their_chunk(settings: Settings) -> None:
    store = ChunkStore.from_settings(settings)
    store.upsert([_chunk("rates", RATES), _chunk("derby", DERBY)])
    assert sorted(_owners(store)) == ["derby:0"] * 2 + ["rates:0"] * 3
    store.upsert([_chunk("rates", "The Federal Reserve raised interest rates by a quarter point.")])
    assert sorted(_owners(store)) == ["derby:0"] * 2 + ["rates:0"]  # replaced, not added to
    store.delete_document("derby")
    assert _owners(store) == ["rates:0"]
    assert store.sentences is not None and store.sentences.chunks_with_sentences() == {"rates:0"}


def test_fill_writes_what_an_older_store_lacks(settings: Settings) -> None:
    old = ChunkStore.from_settings(settings.model_copy(update={"sentence_vectors": False}))
    old.upsert([_chunk("rates", RATES), _chunk("derby", DERBY)])
    assert old.sentence_vectors({}) is None
    store = ChunkStore.from_settings(settings)
    assert _owners(store) == []
    before = store.revision()
    calls: list[tuple[int, int]] = []
    assert store.fill_sentences(lambda n, total: calls.append((n, total))) == 2
    assert calls == [(2, 2)]
    assert sorted(_owners(store)) == ["derby:0"] * 2 + ["rates:0"] * 3
    assert store.revision() != before  # readers rebuild their index
    assert store.fill_sentences() == 0


def test_the_matching_sentence_lifts_its_chunk(settings: Settings) -> None:
    store = ChunkStore.from_settings(settings)
    filler = " ".join(f"Paragraph {n} of the report lists the spending of the department in detail." for n in range(8))
    store.upsert([_chunk("rates", filler + " The Federal Reserve raised interest rates."), _chunk("derby", DERBY)])
    snapshot = build_snapshot(store, store.revision())
    assert snapshot.sentences is not None
    query = store.embedder.embed_query("Did the Federal Reserve raise interest rates?")
    plain = snapshot.vectors @ query
    blended = snapshot.dense_scores(query)
    rates = snapshot.positions["rates:0"]
    assert blended[rates] > plain[rates]  # its last sentence is closer to the question than the whole chunk
    assert np.allclose(snapshot.dense_scores_many(np.stack([query, query])), [blended, blended])


def test_blend_is_the_mean_of_chunk_and_best_sentence() -> None:
    index = SentenceIndex(
        owners=np.array([0, 0, 0, 2, 3, 3, 3], dtype=np.int64),
        vectors=np.array([[1, 0], [0, 1], [0.6, 0.8], [0, 1], [0, 1], [0, 1], [0, 1]], dtype=np.float32),
    )
    chunk_scores = np.array([[0.5, 0.5], [0.4, 0.4], [0.1, 0.1], [0.3, 0.3]])
    blended = index.blend(chunk_scores, np.array([[0.0, 1.0], [1.0, 0.0]], dtype=np.float32))
    # chunk 1 has no sentences and chunk 2 too few (one): both keep their own similarity
    assert np.allclose(blended[:, 0], [(0.5 + 1.0) / 2, 0.4, 0.1, (0.3 + 1.0) / 2])
    assert np.allclose(blended[:, 1], [(0.5 + 1.0) / 2, 0.4, 0.1, (0.3 + 0.0) / 2])


def test_only_the_pool_of_most_similar_chunks_is_rescored() -> None:
    owners = np.repeat(np.arange(3), 3)
    vectors = np.tile(np.array([[0.0, 1.0]], dtype=np.float32), (9, 1))
    index = SentenceIndex(owners=owners, vectors=vectors, pool=2)
    blended = index.blend(np.array([[0.9], [0.1], [0.5]]), np.array([[0.0, 1.0]], dtype=np.float32))
    assert np.allclose(blended[:, 0], [(0.9 + 1.0) / 2, 0.1, (0.5 + 1.0) / 2])  # chunk 1 is outside the pool of 2


def test_a_restricted_index_blends_its_chunks_as_the_whole_one_does_without_copying_vectors() -> None:
    index = SentenceIndex(
        owners=np.array([0, 0, 0, 2, 3, 3, 3, 4, 4, 4], dtype=np.int64),
        vectors=np.array([[1, 0], [0, 1], [0.6, 0.8], [0, 1], [0, 1], [0, 1], [0, 1], [1, 0], [1, 0], [0, 1]],
                         dtype=np.float32),
    )  # fmt: skip
    keep = np.array([0, 2, 4, 5], dtype=np.int64)  # chunk 5 has no sentences (past the last one that has)
    scores = np.array([[0.5], [0.4], [0.1], [0.3], [0.2], [0.6]])
    query = np.array([[0.0, 1.0]], dtype=np.float32)
    restricted = index.restricted(keep)
    assert restricted.vectors is index.vectors
    whole = SentenceIndex(
        owners=np.array([0, 0, 0, 1, 2, 2, 2], dtype=np.int64), vectors=index.vectors[[0, 1, 2, 3, 7, 8, 9]]
    )
    assert np.allclose(restricted.blend(scores[keep], query), whole.blend(scores[keep], query))
    assert np.allclose(restricted.blend(scores[keep], query)[:, 0], [(0.5 + 1.0) / 2, 0.1, (0.2 + 1.0) / 2, 0.6])
