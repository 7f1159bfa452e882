"""One worker thread per API process runs document jobs in order; a second job waits in the queue.

Every write to the stores (a job, a DELETE) happens inside `exclusive()`: the process's own lock, and the writer lock
that keeps other processes (a CLI ingest, another API process) from writing at the same time. When a job or a delete
finishes, `on_change` runs, which makes the process's retrieval caches look at the stores again.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from graphwire.app.jobs.models import JobFailure, JobProgress
from graphwire.app.jobs.store import JobStore

log = logging.getLogger(__name__)
SHUTDOWN_REASON = "the API process was shut down while this job was running; post the documents again to finish"

ProgressFn = Callable[[JobProgress], None]
# Runs one job: (job id, payload file, progress callback, stop flag) -> (final progress, failures).
Execute = Callable[[str, Path, ProgressFn, threading.Event], tuple[JobProgress, list[JobFailure]]]
# The cross-process writer lock: (what is writing, seconds to wait) -> held while the context is open; raises
# core.store_lock.StoreBusyError when another process keeps the store longer.
StoreLock = Callable[[str, float], AbstractContextManager[object]]
JOB_LOCK_WAIT_S = 3600.0  # a job waits this long for another process's write (a CLI ingest) before it fails


def no_store_lock(purpose: str, wait_s: float) -> AbstractContextManager[object]:
    return nullcontext()


class JobStopped(RuntimeError):
    """The process is shutting down, or a client cancelled the job: it stops after its current batch."""


CANCELLED_REASON = "cancelled by a client; the documents committed before it stopped are kept"


class WriterBusyError(RuntimeError):
    """Another write (a job, a delete) held the stores for longer than the caller would wait."""


class JobRunner:
    def __init__(
        self,
        store: JobStore,
        execute: Execute,
        on_change: Callable[[], None] = lambda: None,
        store_lock: StoreLock = no_store_lock,
    ) -> None:
        self.store = store
        self.execute = execute
        self.on_change = on_change
        self.store_lock = store_lock
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._write_lock = threading.Lock()
        self._stopping = threading.Event()
        self._running: tuple[str, threading.Event] | None = None  # the job now running and its stop flag
        self._cancelled: set[str] = set()
        self._thread = threading.Thread(target=self._work, name="graphwire-jobs", daemon=True)

    def start(self) -> None:
        for job_id in self.store.recover():
            self._queue.put(job_id)
        self._thread.start()

    def submit(self, job_id: str) -> None:
        self._queue.put(job_id)

    def running_job(self) -> str | None:
        """The id of the job running now in this process, if any."""
        running = self._running
        return running[0] if running is not None else None

    def idle(self) -> bool:
        """No job running or waiting in this process."""
        return self._running is None and self._queue.empty()

    def cancel(self, job_id: str) -> None:
        """Cancel a queued job now, or ask a running one to stop at its next batch boundary."""
        if self.store.cancel_queued(job_id, CANCELLED_REASON):
            return
        running = self._running
        if running is not None and running[0] == job_id:
            self._cancelled.add(job_id)
            running[1].set()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Ask the running job to stop after its batch, and wait for the worker (a job still running after
        `timeout_s` is reported as interrupted by the next start)."""
        self._stopping.set()
        running = self._running
        if running is not None:
            running[1].set()
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout=timeout_s)

    @contextmanager
    def exclusive(self, purpose: str, timeout_s: float) -> Iterator[None]:
        """Hold the stores for one write: this process's lock, then the writer lock. Raises `WriterBusyError` (this
        process is writing) or `StoreBusyError` (another process is) when either is not free within `timeout_s`."""
        if not self._write_lock.acquire(timeout=timeout_s):
            raise WriterBusyError("another write to the stores is in progress")
        try:
            with self.store_lock(purpose, timeout_s):
                yield
        finally:
            self._write_lock.release()

    def _work(self) -> None:
        while True:
            job_id = self._queue.get()
            if job_id is None or self._stopping.is_set():
                return
            self._run(job_id)

    def _run(self, job_id: str) -> None:
        job = self.store.get(job_id)
        if job is None or job.state != "queued":
            return
        progress, failures = job.progress, list(job.failures)
        stop = threading.Event()
        self._running = (job_id, stop)
        if self._stopping.is_set():
            stop.set()
        try:
            with self.exclusive(f"graphwire API document job {job_id}", JOB_LOCK_WAIT_S):
                if not self.store.claim(job_id):
                    return  # another API process on the same state folder ran it
                log.info("job started", extra={"job_id": job_id})
                progress, more = self.execute(
                    job_id, self.store.payload_path(job_id), lambda p: self.store.progress(job_id, p), stop
                )
                failures.extend(more)
                error = None
        except JobStopped:
            error = CANCELLED_REASON if job_id in self._cancelled else SHUTDOWN_REASON
        except Exception as exc:  # the job fails with the reason (StoreBusyError names the other writer)
            log.exception("job failed", extra={"job_id": job_id})
            error = f"{type(exc).__name__}: {exc}"
        finally:
            self._running = None
        self._cancelled.discard(job_id)
        cancelled = error == CANCELLED_REASON  # a job asked to stop that finished first is not cancelled
        latest = self.store.get(job_id)
        self.store.finish(job_id, latest.progress if error and latest else progress, failures, error, cancelled)
        log.info("job finished", extra={"job_id": job_id, "error": error})
        self.notify_change()

    def notify_change(self) -> None:
        """The stores changed: let the retrieval caches look again (a failure is logged, never raised)."""
        try:
            self.on_change()
        except Exception:
            log.exception("refreshing the retrieval caches failed")
