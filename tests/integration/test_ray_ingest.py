"""`graphwire ingest --ray`: extraction and embedding on a local Ray cluster (a head and a worker node started here),
one writer; a worker killed mid-job has its partition redone, and the graph and vectors are those a single-machine
ingest writes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import ray
from ray.cluster_utils import Cluster
from support.crash import export_graph

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.clients.vector_cache import CachedEmbedder, VectorCache
from graphwire.core.settings import Settings
from graphwire.ingest.distributed import cached_chunk_store, prepare_on_ray
from graphwire.ingest.extraction_cache import ExtractionCache
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.service import ExtractorChoice, IngestRun, ingest_options

pytestmark = pytest.mark.integration
DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Two Ray nodes on this machine, one CPU each: the head and a worker."""
    local = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    local.add_node(num_cpus=1)
    local.wait_for_nodes()
    ray.init(address=local.address, logging_level="WARNING", log_to_driver=False)
    yield local
    ray.shutdown()
    local.shutdown()


def stores(root: Path) -> Settings:
    return Settings(
        chroma_path=root / "chroma",
        chroma_collection="ray_test",
        extraction_cache_path=root / "extractions.sqlite",
        vector_cache_path=root / "vectors.sqlite",
        ingest_state_path=root / "state",
    )


def vectors_of(store: ChunkStore) -> dict[str, np.ndarray]:
    chunks, matrix = store.get_all_with_vectors()
    return {chunk.id: np.asarray(row) for chunk, row in zip(chunks, matrix, strict=True)}


def sentence_vectors_of(store: ChunkStore) -> np.ndarray:
    chunks, _ = store.get_all_with_vectors()
    found = store.sentence_vectors({c.id: i for i, c in enumerate(chunks)})
    assert found is not None
    owners, vectors = found
    return np.asarray(vectors)[np.lexsort((np.arange(len(owners)), owners))]


def test_ray_ingest_equals_single_machine_and_survives_a_killed_worker(
    graph: Graph, cluster: Cluster, tmp_path: Path
) -> None:
    articles = load_articles(DEMO).articles
    options = ingest_options(Settings(), batch_documents=4, progress=False)

    alone = stores(tmp_path / "alone")
    IngestRun(articles, alone, options=options, extractor=ExtractorChoice.OFFLINE).run(
        graph, chunk_store=ChunkStore.from_settings(alone)
    )
    expected_graph = export_graph(graph)
    expected_store = ChunkStore.from_settings(alone)
    expected_vectors, expected_sentences = vectors_of(expected_store), sentence_vectors_of(expected_store)
    graph.write("admin/wipe")

    markers = tmp_path / "killed"
    markers.mkdir()

    def kill_the_second_task_once(index: int) -> None:
        marker = markers / str(index)
        if index == 1 and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # the worker process dies in the middle of the job

    spread = stores(tmp_path / "spread")
    run = IngestRun(articles, spread, options=options, extractor=ExtractorChoice.OFFLINE, cache_offline=True)
    prepared = prepare_on_ray(run, partitions=3, on_task_start=kill_the_second_task_once, progress=False)
    assert (markers / "1").exists(), "the hook did not kill a worker"
    assert prepared.partitions == 3 and prepared.chunks == len(expected_vectors)
    assert prepared.documents == len(articles) and prepared.failures == 0
    assert len(prepared.task_seconds) == 3  # the killed partition came back once, redone
    assert len(ExtractionCache(spread.extraction_cache_path)) == prepared.extractions > 0
    assert len(VectorCache(spread.vector_cache_path)) == prepared.vectors > len(expected_vectors)

    store = cached_chunk_store(spread)
    report = run.run(graph, chunk_store=store)
    assert report.documents_written == len(articles) and not report.failures
    embedder = store.embedder
    assert isinstance(embedder, CachedEmbedder)
    assert embedder.misses == 0 and embedder.hits == prepared.vectors  # every passage vector came from the job
    assert run.extractor.stats.misses == 0  # type: ignore[attr-defined]  # every extraction came from the job

    assert export_graph(graph) == expected_graph
    written = ChunkStore.from_settings(spread)
    vectors = vectors_of(written)
    assert vectors.keys() == expected_vectors.keys()
    for chunk_id, vector in vectors.items():
        np.testing.assert_allclose(vector, expected_vectors[chunk_id], atol=1e-6)
    np.testing.assert_allclose(sentence_vectors_of(written), expected_sentences, atol=1e-6)


def test_a_cache_miss_is_embedded_as_usual(tmp_path: Path) -> None:
    """The writer's embedder reads what the job put and embeds the rest with the configured model."""
    from graphwire.core.clients.embeddings import embedder_from_settings
    from graphwire.core.clients.vector_cache import text_hash

    inner = embedder_from_settings(Settings())
    cache = VectorCache(tmp_path / "vectors.sqlite")
    marked = np.zeros((1, inner.dimension), dtype=np.float32)
    marked[0, 0] = 1.0
    cache.put(inner.model_id, [text_hash("cached passage")], marked)
    embedder = CachedEmbedder(inner, cache)
    out = embedder.embed(["cached passage", "a passage no job embedded"])
    np.testing.assert_array_equal(out[0], marked[0])
    np.testing.assert_allclose(out[1], inner.embed(["a passage no job embedded"])[0], atol=1e-6)
    assert (embedder.hits, embedder.misses) == (1, 1)
    cache.put("another-model", [text_hash("other space")], marked)
    assert CachedEmbedder(inner, cache).embed(["other space"])[0][0] != 1.0  # never read into another model's space
