"""What a document job does: load its payload with the CLI's loader, run the shared ingest, report per record.

The payload is `{"documents": [record, ...], "positions": [int, ...]}`: the records as posted (those that were JSON)
and each one's position in the posted list, so failures name the position the client sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphwire.app.jobs.models import JobFailure, JobProgress
from graphwire.app.jobs.runner import JobStopped, ProgressFn
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.loaders import LoadResult, load_articles
from graphwire.ingest.pipeline import ChunkSink
from graphwire.ingest.report import IngestReport
from graphwire.ingest.service import ingest_loaded, ingest_options

_RECORD_INDEX = re.compile(r"#(\d+)$")
_RECORD_REFERENCE = re.compile(r"\S+#(\d+)")


@dataclass(frozen=True)
class Loaded:
    """The payload's articles, each with its posted position, and the records that did not load."""

    articles: list[tuple[int, Article]]
    failures: list[JobFailure]


def load_payload(path: Path, max_chars: int | None = None) -> Loaded:
    """The job's documents by posted position; with `max_chars`, a document whose body is longer is a failure at its
    position (one record must not hold the writer for minutes), the same when the job is posted and when it runs."""
    positions: list[int] = json.loads(path.read_text(encoding="utf-8"))["positions"]
    loaded = _positioned(load_articles(path), positions)
    if max_chars is None:
        return loaded
    kept, failures = [], list(loaded.failures)
    for position, article in loaded.articles:
        if len(article.body) > max_chars:
            reason = f"body of {len(article.body)} characters; the limit is {max_chars} (UPLOAD_MAX_DOCUMENT_CHARS)"
            failures.append(JobFailure(position=position, title=article.title, reason=reason))
        else:
            kept.append((position, article))
    return Loaded(kept, sorted(failures, key=lambda f: f.position))


def _positioned(loaded: LoadResult, positions: list[int]) -> Loaded:
    bad: dict[int, JobFailure] = {}
    for error in loaded.errors:
        match = _RECORD_INDEX.search(error.location)
        index = int(match.group(1)) if match else -1
        bad[index] = JobFailure(position=positions[index] if 0 <= index < len(positions) else -1,
                                title=error.title, reason=_posted(error.reason, positions))  # fmt: skip
    good = [positions[i] for i in range(len(positions)) if i not in bad]
    failures = sorted(bad.values(), key=lambda f: f.position)
    return Loaded(list(zip(good, loaded.articles, strict=True)), failures)


def _posted(reason: str, positions: list[int]) -> str:
    """A reason as the poster reads it: "payload.json#3" (the job's internal file) becomes "position 5"."""

    def position(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return f"position {positions[index]}" if 0 <= index < len(positions) else "another record"

    return _RECORD_REFERENCE.sub(position, reason)


@dataclass
class IngestJob:
    """The runner's `execute`: the API's graph and chunk store, the same ingest as `graphwire ingest`."""

    settings: Settings
    graph: Callable[[], Graph]
    chunk_store: Callable[[], ChunkSink | None]

    def __call__(
        self, job_id: str, payload: Path, report_progress: ProgressFn, stopping: threading.Event
    ) -> tuple[JobProgress, list[JobFailure]]:
        # load failures were reported when the job was posted
        loaded = load_payload(payload, self.settings.upload_max_document_chars)
        articles = [article for _, article in loaded.articles]
        total = len(loaded.articles) + len(loaded.failures)
        started = time.perf_counter()

        def after_batch(report: IngestReport) -> None:
            report_progress(_progress(report, total, started))
            if stopping.is_set():
                raise JobStopped(job_id)

        options = ingest_options(self.settings, progress=False, after_batch=after_batch)
        report = ingest_loaded(articles, self.graph(), self.settings, options=options, chunk_store=self.chunk_store())
        return _progress(report, total, started), _extraction_failures(report, loaded)


def _progress(report: IngestReport, total: int, started: float) -> JobProgress:
    elapsed = time.perf_counter() - started
    return JobProgress(
        documents_total=total,
        documents_done=report.documents_written + report.documents_unchanged + report.documents_resumed,
        chunks=report.chunks_written,
        chunks_per_s=round(report.chunks_written / elapsed, 2) if elapsed > 0 else 0.0,
    )


def _extraction_failures(report: IngestReport, loaded: Loaded) -> list[JobFailure]:
    """Chunks the extractor failed on, one failure per document (its position), reasons joined."""
    where = {article.doc_id: (position, article.title) for position, article in loaded.articles}
    reasons: dict[str, list[str]] = {}
    for note in report.failures:
        reasons.setdefault(note.document_id, []).append(f"chunk {note.chunk_id}: {note.reason}")
    failures = []
    for document_id, notes in reasons.items():
        position, title = where.get(document_id, (-1, None))
        failures.append(JobFailure(position=position, title=title, reason="extraction failed: " + "; ".join(notes)))
    return failures
