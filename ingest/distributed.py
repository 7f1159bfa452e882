"""Ingestion across machines on Ray: extraction and embedding as a batch job, then the one writer.

    run = IngestRun(articles, settings, options=options, cache_offline=True)
    report = prepare_on_ray(run, address="auto", partitions=8)      # workers extract and embed
    run.run(graph, chunk_store=cached_chunk_store(settings), state=state)  # reads both caches, writes as usual

Extraction and embedding are per chunk and need no global view, so they are what runs on the workers; resolution and
writing need the whole graph and one writer, so they stay on the driver, in the normal crash-safe ingest
(ingest/pipeline.py). Each task gets a partition of the documents, extracts its chunks with the run's extractor (the
offline one, or the LLM's), embeds the chunks and their sentences, and returns the rows: extraction-cache rows keyed by
the chunk text's hash, the extractor, its version and the schema fingerprint (ingest/extraction_cache.py), and vectors
keyed by the text's hash and the model (core/clients/vector_cache.py). Results travel through Ray's object store, so
workers need no shared disk. The driver merges them into EXTRACTION_CACHE_PATH and VECTOR_CACHE_PATH as they arrive.

A task embeds in the writer's own groups (`units`: the chunks of a `batch_documents` batch, WRITE_BATCH at a time,
each group's sentences in the same call): the int8 model's activation ranges are taken per ONNX run, so the same
groups give the same vectors, and the distributed ingest writes the graph and vectors a single-machine ingest writes.
A group is the job's smallest part: a partition is a run of consecutive groups.

A task whose worker dies is run again by Ray (`max_retries`); its rows are keyed by content, so a partition done
twice writes the same rows. A rerun of the whole job recomputes everything and replaces rows with equal ones.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from graphwire.core.clients.chunk_store import ChunkStore, embedding_groups
from graphwire.core.clients.embeddings import embedder_from_settings
from graphwire.core.clients.vector_cache import CachedEmbedder, VectorCache, text_hash
from graphwire.core.documents import Article, Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.extraction_cache import CachedExtractor, ExtractionCache, ExtractionRow, FailureRecord
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.pipeline import IngestOptions, batched, first_of_each_id, limited
from graphwire.ingest.service import ExtractorChoice, IngestRun, build_extractor
from graphwire.schema.model import GraphSchema

TASK_RETRIES = 3  # runs of a task whose worker died, after the first
TaskHook = Callable[[int], None]  # called with the partition index as a task starts (tests kill workers with it)


@dataclass(frozen=True)
class PartitionJob:
    """What every task reads: the run's settings, schema and gazetteer (the offline extractor's known names), the
    extractor chosen, and whether to embed."""

    settings: Settings
    schema: GraphSchema
    gazetteer: Gazetteer
    extractor: ExtractorChoice
    vectors: bool


@dataclass(frozen=True)
class PartitionResult:
    index: int
    chunks: int
    extractions: list[ExtractionRow]
    failures: list[FailureRecord]
    model: str
    hashes: list[str]
    vectors: np.ndarray  # one row per hash
    seconds: float
    worker: str  # host:pid of the process that did it


@dataclass
class PrepareReport:
    """What the job did: partitions, chunks, rows merged, the workers that ran tasks, and the time."""

    partitions: int = 0
    documents: int = 0
    chunks: int = 0
    extractions: int = 0
    failures: int = 0
    vectors: int = 0
    seconds: float = 0.0
    task_seconds: list[float] = field(default_factory=list)
    workers: set[str] = field(default_factory=set)


Unit = list[Chunk]  # the chunks of one call of the writer's embedder (ChunkStore.upsert): the job's smallest part


def units(articles: Sequence[Article], options: IngestOptions) -> list[Unit]:
    """A fresh ingest's chunks, in the groups the writer embeds them in: `ingest_articles` takes the first N records
    when `limit` is set and the first record of each id, writes `batch_documents` documents a batch, and the chunk
    store embeds a batch's chunks (with their sentences) WRITE_BATCH at a time."""
    unique, _ = first_of_each_id(limited(articles, options))
    documents = [chunk_article(a, options.chunk_size, options.chunk_overlap) for a in unique.values()]
    out: list[Unit] = []
    for batch in batched(documents, options.batch_documents):
        chunks = [chunk for doc in batch for chunk in doc]
        out.extend(list(group) for group, _ in embedding_groups(chunks, sentences=False))
    return out


def deal(parts: list[Unit], partitions: int) -> list[list[Unit]]:
    """Consecutive units into at most `partitions` partitions of near-equal chunk counts."""
    if partitions >= len(parts):
        return [[unit] for unit in parts]
    count = max(1, partitions)
    target = sum(len(unit) for unit in parts) / count
    out: list[list[Unit]] = [[]]
    filled = 0
    for unit in parts:
        if out[-1] and filled >= target * len(out) and len(out) < count:
            out.append([])
        out[-1].append(unit)
        filled += len(unit)
    return out


def prepare_partition(
    index: int, part: list[Unit], job: PartitionJob, on_start: TaskHook | None = None
) -> PartitionResult:
    """One task: extract every chunk of these units into an in-memory extraction cache and embed each unit (its
    chunks, then their sentences) in one call, as the writer would; returns the rows. Runs on a Ray worker (or
    anywhere: it touches no store)."""
    if on_start is not None:
        on_start(index)
    started = time.perf_counter()
    settings = job.settings.model_copy(update={"extraction_cache_path": Path(":memory:")})
    extractor = build_extractor(job.extractor, settings, job.schema, job.gazetteer, cache_offline=True)
    if not isinstance(extractor, CachedExtractor):  # build_extractor caches every extractor when asked to
        raise TypeError("expected the extractor behind the extraction cache")
    hashes: list[str] = []
    vectors: list[np.ndarray] = []
    model = ""
    try:
        for unit in part:
            extractor.extract(unit)
        if job.vectors:
            embedder = embedder_from_settings(settings)
            model = embedder.model_id
            for unit in part:
                for group, rows in embedding_groups(unit, sentences=settings.sentence_vectors):
                    texts = [chunk.text for chunk in group] + rows.texts
                    hashes.extend(text_hash(text) for text in texts)
                    vectors.append(embedder.embed(texts))
        rows_out, failures = extractor.cache.export(), extractor.cache.failures()
    finally:
        extractor.close()
    return PartitionResult(
        index=index,
        chunks=sum(len(unit) for unit in part),
        extractions=rows_out,
        failures=failures,
        model=model,
        hashes=hashes,
        vectors=np.concatenate(vectors) if vectors else np.zeros((0, 0), dtype=np.float32),
        seconds=time.perf_counter() - started,
        worker=f"{socket.gethostname()}:{os.getpid()}",
    )


def prepare_on_ray(
    run: IngestRun,
    *,
    address: str | None = "auto",
    partitions: int = 0,
    vectors: bool = True,
    on_task_start: TaskHook | None = None,
    progress: bool = True,
) -> PrepareReport:
    """Extract and embed `run`'s documents on the Ray cluster at `address` ("auto": the one `ray start` started on
    this machine; None: a local one for this process) and merge the rows into the run's caches. `partitions` 0:
    four per CPU of the cluster. The caller then runs `run.run(...)` with `cached_chunk_store`."""
    import ray

    started = time.perf_counter()
    if not ray.is_initialized():
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    count = partitions or 4 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    all_units = units(run.articles, run.options)
    parts = deal(all_units, count)
    # workers need the LLM's and the embeddings endpoint's keys, not the stores'
    sent = run.settings.model_copy(update={"neo4j_password": None, "api_key": None})
    job = PartitionJob(sent, run.schema, run.gazetteer, run.choice, vectors)
    task: Any = ray.remote(max_retries=TASK_RETRIES, num_cpus=1)(prepare_partition)
    job_ref = ray.put(job)
    pending = [task.remote(i, part, job_ref, on_task_start) for i, part in enumerate(parts)]
    documents = len({chunk.document_id for unit in all_units for chunk in unit})
    report = PrepareReport(partitions=len(parts), documents=documents)
    with (
        _Caches(run.settings) as caches,
        tqdm(total=sum(map(len, all_units)), unit="chunk", desc="prepare", disable=not progress) as bar,
    ):
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            result: PartitionResult = ray.get(done[0])
            caches.merge(result)
            _count(report, result)
            bar.update(result.chunks)
    report.seconds = time.perf_counter() - started
    return report


def _count(report: PrepareReport, result: PartitionResult) -> None:
    report.chunks += result.chunks
    report.extractions += len(result.extractions)
    report.failures += len(result.failures)
    report.vectors += len(result.hashes)
    report.task_seconds.append(result.seconds)
    report.workers.add(result.worker)


class _Caches:
    """The driver's extraction and vector caches, open for the job's merges."""

    def __init__(self, settings: Settings) -> None:
        self.extractions = ExtractionCache(settings.extraction_cache_path)
        self.vectors = VectorCache(settings.vector_cache_path)

    def merge(self, result: PartitionResult) -> None:
        self.extractions.merge(result.extractions)
        for failure in result.failures:
            self.extractions.record_failure(failure.chunk_id, failure.document_id, failure.reason, failure.attempts)
        if result.hashes:
            self.vectors.put(result.model, result.hashes, result.vectors)

    def __enter__(self) -> _Caches:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.extractions.close()
        self.vectors.close()


def cached_chunk_store(settings: Settings) -> ChunkStore:
    """The configured chunk store, its passages embedded from VECTOR_CACHE_PATH where the job put them."""
    embedder = CachedEmbedder(embedder_from_settings(settings), VectorCache(settings.vector_cache_path))
    return ChunkStore.from_settings(settings, embedder=embedder)
