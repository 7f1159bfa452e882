"""Blocking work run beside the caller's own, bounded: one request's independent stages overlap while threads are
free, and run one after the other when they are not (so load never queues a request behind another's stage)."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Beside:
    """`start(fn, *args)` returns a handle whose call gives `fn`'s result (or raises its error): `fn` runs at once in
    one of `workers` threads when one is free, else in the caller's thread when the handle is called. The caller's
    context variables (the request id of log lines) go with it. `workers=0` runs everything in the caller's thread."""

    def __init__(self, workers: int, name: str) -> None:
        self._slots = threading.BoundedSemaphore(workers) if workers > 0 else None
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) if workers > 0 else None

    def start(self, fn: Callable[..., T], *args: object) -> Callable[[], T]:
        if self._pool is None or self._slots is None or not self._slots.acquire(blocking=False):
            return lambda: fn(*args)
        context = contextvars.copy_context()
        try:
            future = self._pool.submit(self._run, context, fn, *args)
        except BaseException:
            self._slots.release()
            raise
        return future.result

    def _run(self, context: contextvars.Context, fn: Callable[..., T], *args: object) -> T:
        try:
            return context.run(fn, *args)
        finally:
            assert self._slots is not None
            self._slots.release()
