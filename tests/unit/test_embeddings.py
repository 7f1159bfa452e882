"""The offline MiniLM embedder: shape, normalisation, semantic ordering, batching invariance."""

from __future__ import annotations

import numpy as np
import pytest

from core.embeddings import MINILM_DIMENSION, MiniLMOnnxEmbedder, OpenAIEmbedder, embedder_from_settings
from core.settings import EmbeddingBackend, Settings


@pytest.fixture(scope="module")
def embedder() -> MiniLMOnnxEmbedder:
    return MiniLMOnnxEmbedder(batch_size=2)


def test_vectors_are_384_d_and_unit_length(embedder: MiniLMOnnxEmbedder) -> None:
    vectors = embedder.embed(["Apple unveiled a new iPhone.", "", "x " * 2000])
    assert vectors.shape == (3, MINILM_DIMENSION)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_related_texts_score_higher_than_unrelated(embedder: MiniLMOnnxEmbedder) -> None:
    bank, borrowing, striker, footballer = embedder.embed(
        [
            "The central bank raised interest rates again.",
            "Borrowing costs climbed after the rate decision.",
            "The striker scored twice in the derby.",
            "A football player netted two goals.",
        ]
    )
    assert bank @ borrowing > bank @ striker + 0.2
    assert striker @ footballer > striker @ borrowing + 0.2


def test_batching_and_order_do_not_change_vectors(embedder: MiniLMOnnxEmbedder) -> None:
    texts = ["short", "a much longer sentence about markets and inflation in Europe", "medium length text"]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed_query(text) for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-4)
    assert embedder.embed([]).shape == (0, MINILM_DIMENSION)


class _FakeEmbeddingsAPI:
    """Stands in for openai's client.embeddings: returns rows out of order and unnormalised."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def create(self, model: str, input: list[str]) -> object:
        self.calls.append(input)
        data = [
            type("Item", (), {"index": i, "embedding": [float(len(text)), 1.0, 0.0]}) for i, text in enumerate(input)
        ]
        return type("Response", (), {"data": list(reversed(data))})


def test_openai_embedder_orders_batches_and_normalises() -> None:
    api = _FakeEmbeddingsAPI()
    embedder = OpenAIEmbedder(model="m", client=type("Client", (), {"embeddings": api})(), batch_size=2)
    vectors = embedder.embed(["a", "bbb", "cc"])
    assert [len(call) for call in api.calls] == [2, 1]
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert vectors[1][0] > vectors[2][0] > vectors[0][0]  # longer text -> larger first component, in input order
    assert embedder.dimension == 3


def test_settings_pick_one_shared_offline_embedder() -> None:
    settings = Settings(embedding_backend=EmbeddingBackend.OFFLINE)
    first = embedder_from_settings(settings)
    assert isinstance(first, MiniLMOnnxEmbedder)
    assert embedder_from_settings(Settings(embedding_backend=EmbeddingBackend.OFFLINE)) is first
