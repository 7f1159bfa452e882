"""The API's document writes, built once per process in the app's lifespan: jobs (queued, run one at a time,
persisted) and deletes, both through the same ingest code as `graphwire ingest`, both followed by a cache refresh.

Each accepted write is audited (core/auth/audit.py) with the principal who asked: one `document.add` (or
`document.replace`, for an id already stored) per document of a job when the job is accepted, one
`document.job.<state>` when it finishes, one `document.delete` per delete. A refused one records nothing."""

from __future__ import annotations

import functools
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphwire.app.errors import ApiError
from graphwire.app.jobs.ingest_job import IngestJob, load_payload
from graphwire.app.jobs.models import Job, JobState
from graphwire.app.jobs.runner import JobRunner, WriterBusyError
from graphwire.app.jobs.store import JobStore
from graphwire.app.uploads import Upload
from graphwire.core import metrics
from graphwire.core.auth.audit import AuditTrail, Event
from graphwire.core.auth.models import Principal
from graphwire.core.clients.graph import Graph
from graphwire.core.schema import configured_schema
from graphwire.core.settings import Settings
from graphwire.core.stores.store_lock import StoreBusyError
from graphwire.core.stores.write_session import WriteSession
from graphwire.ingest.pipeline import ChunkSink, delete_document
from graphwire.ingest.provenance import ProvenanceCaps


@dataclass
class DocumentWrites:
    settings: Settings
    graph: Callable[[], Graph]
    chunk_store: Callable[[], ChunkSink]
    store: JobStore
    runner: JobRunner
    audit: AuditTrail

    @classmethod
    def build(
        cls, settings: Settings, graph: Callable[[], Graph], chroma: Callable[[], Any], on_change: Callable[[], None],
        audit: AuditTrail,
    ) -> DocumentWrites:  # fmt: skip
        chunk_store = functools.cache(lambda: _chunk_store(settings, chroma()))
        store = JobStore(settings.ingest_state_path)

        def session(purpose: str, wait_s: float) -> WriteSession:
            return WriteSession(settings, graph, purpose).open(wait_s)

        runner = JobRunner(store, IngestJob(settings, graph, chunk_store), on_change, session)
        writes = cls(settings, graph, chunk_store, store, runner, audit)
        store.on_finish = writes._job_finished
        return writes

    def submit(self, upload: Upload, actor: Principal) -> Job:
        """Queue a job for the posted records; 422 when none of them is a document the loader accepts. `actor` is
        who asked: the audit names it for each document and for the job's outcome."""
        job_id = uuid.uuid4().hex
        path = self.store.payload_path(job_id)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"documents": upload.records, "positions": upload.positions}), encoding="utf-8")
        os.replace(tmp, path)
        loaded = load_payload(path, self.settings.upload_max_document_chars)
        failures = sorted([*upload.failures, *loaded.failures], key=lambda f: f.position)
        metrics.INGEST_FAILURES.labels("record").inc(len(failures))
        if not loaded.articles:
            path.unlink(missing_ok=True)
            details = [f.model_dump() for f in failures[:20]]
            raise ApiError(422, "validation_error", "none of the posted records is a valid document", details)
        ids = list(dict.fromkeys(article.doc_id for _, article in loaded.articles))
        submitted = {"actor": {"id": actor.id, "name": actor.name}, "documents": ids}
        job = self.store.create(job_id, upload.count, failures, submitted)
        stored = self._stored_ids(ids)
        events: list[Event] = []
        for _, article in loaded.articles:
            action = "document.add" if stored is None or article.doc_id not in stored else "document.replace"
            detail = {"job_id": job_id, "title": article.title, "source": article.source}
            events.append((action, article.doc_id, detail if stored is not None else {**detail, "stored": None}))
        self.audit.record(actor, events)
        self.runner.submit(job_id)
        return job

    def _stored_ids(self, ids: list[str]) -> set[str] | None:
        """Which of the ids are stored already (the job replaces them); None when Neo4j cannot tell now."""
        try:
            return {row["id"] for row in self.graph().read("documents/stored_ids", ids=ids)}
        except Exception:  # the job itself reports Neo4j being down; the audit says add, with `stored` unknown
            return None

    def _job_finished(self, job: Job, submitted: dict[str, Any] | None) -> None:
        """The audit of a job's outcome, by whoever posted it: its state, the documents it wrote, its failures."""
        if submitted is None:  # a job posted before the audit existed
            return
        who = submitted["actor"]
        actor = Principal(id=who["id"], name=who["name"], via="job")
        ids: list[str] = submitted.get("documents", [])
        detail: dict[str, Any] = {
            "state": job.state.value, "documents_done": job.progress.documents_done, "chunks": job.progress.chunks,
            "failures": len(job.failures), "error": job.error[:500] if job.error else None,
        }  # fmt: skip
        # a job that succeeded wrote each of its documents (a failure is a record that did not load or a chunk the
        # extractor failed on); one that failed or was cancelled wrote some of them, `documents_done` says how many
        detail["document_ids" if job.state == JobState.SUCCEEDED else "documents_attempted"] = ids
        self.audit.record(actor, [(f"document.job.{job.state.value}", job.job_id, detail)])

    def job(self, job_id: str) -> Job:
        """A job as the store has it now; 404 for an unknown id."""
        job = self.store.get(job_id)
        if job is None:
            raise ApiError(404, "not_found", f"no job with id {job_id!r}")
        return job

    def set_access(self, document_id: str, access: list[str] | None, actor: Principal) -> dict[str, Any] | None:
        """Set who may read a document and its chunks (no extraction), audited as `document.access`; None when the
        id is unknown. Waits for the writer as a delete does."""
        wait_s = min(DELETE_LOCK_WAIT_S, self.settings.request_timeout_s)
        try:
            with self.runner.exclusive(f"graphwire API access {document_id}", wait_s):
                rows = self.graph().write("access/set_document_access", id=document_id, access=access)
        except (WriterBusyError, StoreBusyError) as exc:
            raise ApiError(409, "busy", f"another write holds the store ({exc}); try again when it finishes") from exc
        if not rows:
            return None
        self.audit.record(actor, [("document.access", document_id, {"access": access})])
        self.runner.notify_change()
        return rows[0]

    def delete(self, document_id: str, actor: Principal) -> dict[str, Any] | None:
        """The CLI's delete (provenance kept: shared entities and relationships stay), or None when unknown.

        An unknown id is known without the writer lock; a known one waits at most DELETE_LOCK_WAIT_S for a running
        job or another process's write, then answers 409 naming it instead of holding the request for minutes."""
        if not self.graph().read("ingest/find_documents", ref=document_id):
            return None
        wait_s = min(DELETE_LOCK_WAIT_S, self.settings.request_timeout_s)
        try:
            with self.runner.exclusive(f"graphwire API delete {document_id}", wait_s):
                deleted = delete_document(self.graph(), document_id, self.chunk_store(), provenance=self._provenance())
        except WriterBusyError as exc:
            holder = self.runner.running_job()
            who = f"document job {holder}" if holder else "another write of this API process"
            raise ApiError(409, "busy", f"{who} is writing; try the delete again when it finishes") from exc
        except StoreBusyError as exc:
            raise ApiError(409, "busy", str(exc)) from exc
        if deleted is not None:
            counts = {key: deleted.get(key) for key in ("chunks", "relationships", "entities")}
            self.audit.record(actor, [("document.delete", deleted["id"], counts)])
            self.runner.notify_change()
        return deleted

    def _provenance(self) -> ProvenanceCaps:
        return ProvenanceCaps.of(configured_schema(self.settings), self.settings)


DELETE_LOCK_WAIT_S = 5.0  # longest a DELETE waits for the writer lock before its 409


def _chunk_store(settings: Settings, client: Any) -> ChunkSink:
    from graphwire.core.clients.chunk_store import ChunkStore
    from graphwire.core.clients.embeddings import embedder_from_settings

    return ChunkStore(
        client, settings.chroma_collection, embedder_from_settings(settings), sentences=settings.sentence_vectors
    )
