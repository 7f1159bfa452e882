"""retrieval/beside.py: work runs in a worker thread while one is free, in the caller's thread otherwise, with the
caller's context variables, and its error reaches the caller."""

from __future__ import annotations

import contextvars
import threading

import pytest

from graphwire.retrieval.beside import Beside

REQUEST = contextvars.ContextVar("request", default="none")


def _where() -> tuple[str, str]:
    return threading.current_thread().name, REQUEST.get()


def test_work_runs_in_a_worker_thread_with_the_callers_context() -> None:
    REQUEST.set("req-1")
    thread, request = Beside(1, "side").start(_where)()
    assert thread.startswith("side") and request == "req-1"


def test_busy_workers_leave_the_work_to_the_caller() -> None:
    beside = Beside(1, "side")
    release = threading.Event()
    blocked = beside.start(release.wait)  # holds the only worker
    thread, _ = beside.start(_where)()
    assert thread == threading.current_thread().name
    release.set()
    assert blocked() is True
    assert beside.start(_where)()[0].startswith("side")  # the slot is free again


def test_no_workers_runs_everything_in_the_caller() -> None:
    assert Beside(0, "side").start(_where)()[0] == threading.current_thread().name


def test_an_error_reaches_the_caller_and_frees_the_worker() -> None:
    beside = Beside(1, "side")

    def fail() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        beside.start(fail)()
    assert beside.start(_where)()[0].startswith("side")
