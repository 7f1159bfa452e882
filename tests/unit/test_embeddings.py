"""The offline embedders (MiniLM, bge-small): shape, normalisation, pooling, query prefix, batching invariance,
the pinned sha256; and the OpenAI-compatible one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest

from graphwire.core.clients.embeddings import (
    BGE_QUERY_PREFIX,
    BGE_SMALL_DIMENSION,
    BGE_SMALL_MODEL_ID,
    MINILM_DIMENSION,
    MINILM_MODEL_ID,
    BgeSmallOnnxEmbedder,
    EmbeddingError,
    MiniLMOnnxEmbedder,
    bge_small_present,
    embedder_from_settings,
    l2_normalise,
    offline_embedder_for,
    verify_sha256,
)
from graphwire.core.clients.openai_embedder import OpenAIEmbedder
from graphwire.core.settings import EmbeddingBackend, OfflineEmbeddingModel, Settings


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
    np.testing.assert_allclose(embedder.embed_queries(texts), together, atol=1e-4)  # symmetric: no query prefix


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
    settings = Settings(embedding_backend=EmbeddingBackend.OFFLINE, offline_embedding_model="minilm")
    first = embedder_from_settings(settings)
    assert isinstance(first, MiniLMOnnxEmbedder)
    assert embedder_from_settings(Settings(offline_embedding_model="minilm")) is first


def test_bge_small_is_the_offline_default_and_loads_lazily() -> None:
    settings = Settings(embedding_backend=EmbeddingBackend.OFFLINE, offline_embedding_model="bge-small")
    assert Settings.model_fields["offline_embedding_model"].default is OfflineEmbeddingModel.BGE_SMALL
    embedder = embedder_from_settings(settings)
    assert isinstance(embedder, BgeSmallOnnxEmbedder)
    assert embedder.model_id == BGE_SMALL_MODEL_ID and embedder.dimension == BGE_SMALL_DIMENSION
    assert embedder_from_settings(Settings(offline_embedding_model="minilm")) is not embedder


def test_a_stored_collection_reopens_with_the_model_it_names() -> None:
    assert isinstance(offline_embedder_for(BGE_SMALL_MODEL_ID), BgeSmallOnnxEmbedder)
    assert isinstance(offline_embedder_for(MINILM_MODEL_ID), MiniLMOnnxEmbedder)


def test_a_model_file_with_another_sha256_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bge-small-en-v1.5-q.onnx").write_bytes(b"not the model")
    (tmp_path / "bge-small-en-v1.5-q-tokenizer.json").write_text("{}")
    embedder = BgeSmallOnnxEmbedder(model_dir=tmp_path)
    with pytest.raises(EmbeddingError, match=r"has sha256 [0-9a-f]{64}, not the pinned 6c9c6101a956") as caught:
        embedder.embed(["anything"])
    assert "bge-small-en-v1.5-q.onnx" in str(caught.value) and "graphwire embeddings fetch" in str(caught.value)
    with pytest.raises(EmbeddingError, match="not the pinned"):
        verify_sha256(tmp_path / "bge-small-en-v1.5-q-tokenizer.json", "0" * 64)


def test_a_missing_bge_model_names_the_fetch_command(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="graphwire embeddings fetch"):
        BgeSmallOnnxEmbedder(model_dir=tmp_path).embed(["anything"])


@pytest.fixture(scope="module")
def bge() -> BgeSmallOnnxEmbedder:
    """The real bge-small model: `make install` fetches it, so CI always has it; elsewhere it may be absent."""
    if not bge_small_present():
        message = "bge-small-en-v1.5 is not fetched: run `graphwire embeddings fetch` (part of `make install`)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return BgeSmallOnnxEmbedder(batch_size=2)


def test_bge_uses_the_cls_token_and_unit_length(bge: BgeSmallOnnxEmbedder) -> None:
    texts = ["The harbour ferry was cancelled because of fog.", "", "word " * 1000]
    vectors = bge.embed(texts)
    assert vectors.shape == (3, BGE_SMALL_DIMENSION) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    encoding = bge._tokenizer.encode(texts[0])
    ids = np.array([encoding.ids], dtype=np.int64)
    mask = np.array([encoding.attention_mask], dtype=np.int64)
    hidden = bge._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    cls, mean = l2_normalise(hidden[0][:, 0]), l2_normalise(hidden[0].mean(axis=1))
    alone = bge.embed(texts[:1])[0]  # int8 activations are quantised per batch: compare the same one-text batch
    np.testing.assert_allclose(alone, cls[0], atol=1e-5)
    assert float(alone @ mean[0]) < 0.99  # not mean pooling
    assert float(alone @ vectors[0]) > 0.99  # batching with other texts changes the vector only slightly
    assert len(bge._tokenizer.encode(texts[2]).ids) == 512  # truncated at the model's 512 tokens


def test_bge_prefixes_queries_only(bge: BgeSmallOnnxEmbedder) -> None:
    question = "When does the night market open?"
    query = bge.embed_query(question)
    np.testing.assert_allclose(query, bge.embed([BGE_QUERY_PREFIX + question])[0], atol=1e-5)
    assert float(query @ bge.embed([question])[0]) < 0.99
    # each query alone: its vector does not depend on what else the request embeds (int8 ranges are per batch)
    np.testing.assert_array_equal(bge.embed_queries([question, "x"])[0], query)
    np.testing.assert_array_equal(
        bge.embed_queries(["a much longer question about the night market", question])[1], query
    )


def test_intra_op_threads_do_not_spin(bge: BgeSmallOnnxEmbedder) -> None:
    bge.embed_query("load the session")
    assert bge._session is not None
    spinning = "session.intra_op.allow_spinning"
    assert bge._session.get_session_options().get_session_config_entry(spinning) == "0"
    assert bge.new_session(1, spinning=True).get_session_options().get_session_config_entry(spinning) == "1"


def test_sessions_fuse_the_models_operators_with_extended_optimizations(bge: BgeSmallOnnxEmbedder) -> None:
    import onnxruntime as ort

    bge.embed_query("load the sessions")
    level = ort.GraphOptimizationLevel
    for session in (bge._session, bge._side_by_side()[0]):
        assert session.get_session_options().graph_optimization_level == level.ORT_ENABLE_EXTENDED
    basic = bge.new_session(1, optimization="basic")
    assert basic.get_session_options().graph_optimization_level == level.ORT_ENABLE_BASIC
    # the levels' vectors of a question stay close (cosine 0.996 and more on 200 news questions: onnx_optimization.md)
    question = BGE_QUERY_PREFIX + "When does the night market open?"
    assert float(bge._encode_batch([question], basic)[0] @ bge.embed_query("When does the night market open?")) > 0.99


def test_bge_ranks_the_matching_passage_first(bge: BgeSmallOnnxEmbedder) -> None:
    passages = [
        "The Lindqvist bakery on Harbour Street was opened in 1998 by the pastry chef Ines Moreau.",
        "Northfield's council voted to close the old swimming pool and build a library in its place.",
        "The trail runners crossed the glacier at dawn and reached the hut before the storm.",
        "A volcanic eruption in the south of the island grounded flights for three days.",
        "The orchestra's new conductor replaced half of the winter programme with modern works.",
    ]
    questions = [
        "Who founded the bakery on Harbour Street?",
        "What will replace the swimming pool in Northfield?",
        "When did the runners get to the hut?",
        "Why were planes unable to take off?",
        "What did the conductor change about the concerts?",
    ]
    similarities = bge.embed_queries(questions) @ bge.embed(passages).T
    assert list(similarities.argmax(axis=1)) == list(range(len(questions)))


def test_a_requests_texts_run_side_by_side_one_thread_each_with_the_vectors_each_gives_alone(
    bge: BgeSmallOnnxEmbedder,
) -> None:
    texts = [f"question {i} about the night market" + " and its stalls" * i for i in range(6)]
    together = bge.embed_queries(texts)
    np.testing.assert_array_equal(together, np.stack([bge.embed_query(text) for text in texts]))  # in order
    session, pool = bge._side_by_side()
    assert session.get_session_options().intra_op_num_threads == 1
    assert pool._max_workers == bge.query_workers >= 1


def test_one_question_runs_on_the_one_thread_session_with_the_passage_sessions_vector(
    bge: BgeSmallOnnxEmbedder,
) -> None:
    question = "when does the night market open?"
    used: list[Any] = []
    encode = bge._encode_batch

    def spy(texts: list[str], session: Any = None) -> Any:
        used.append(session)
        return encode(texts, session)

    with patch.object(bge, "_encode_batch", spy):
        vector = bge.embed_query(question)
    assert used == [bge._side_by_side()[0]]  # not the passage session of a thread per core
    np.testing.assert_array_equal(vector, bge.embed([BGE_QUERY_PREFIX + question])[0])


def test_a_forked_child_embeds_a_requests_texts_with_its_own_pool(bge: BgeSmallOnnxEmbedder) -> None:
    import os
    import select
    import signal

    texts = ["when does the night market open?", "who runs the night market?"]
    expected = bge.embed_queries(texts)  # the parent's pool exists before the fork
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its pool must be its own, or the texts would wait on threads the fork did not copy
        try:
            os.write(write, bge.embed_queries(texts).tobytes())
        finally:
            os._exit(0)
    os.close(write)
    poller = select.poll()  # not select(): a long test session's descriptors pass select()'s limit of 1024
    poller.register(read, select.POLLIN)
    ready = poller.poll(60_000)
    if not ready:  # the child waits on a pool thread that does not exist in it
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert ready, "the forked child's embed_queries never returned"
    with os.fdopen(read, "rb") as pipe:
        got = pipe.read()
    np.testing.assert_array_equal(np.frombuffer(got, dtype=np.float32).reshape(expected.shape), expected)
