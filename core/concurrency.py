"""Run one call beside the caller's own work: a thread per call (no pool whose queue a busy server could fill), the
caller's context (trace, request id) carried into it, its exception raised where the result is read."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Beside(Generic[T]):
    """`fn()` started on a thread now; `result()` waits for it and returns its value or raises its exception."""

    def __init__(self, fn: Callable[[], T], name: str = "graphwire-beside") -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        context = contextvars.copy_context()
        self._thread = threading.Thread(target=context.run, args=(self._call, fn), name=name, daemon=True)
        self._thread.start()

    def _call(self, fn: Callable[[], T]) -> None:
        try:
            self._value = fn()
        except BaseException as exc:  # re-raised in the caller's thread by result()
            self._error = exc

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]
