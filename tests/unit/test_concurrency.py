"""`Beside` runs a call on its own thread: its value, or its exception, comes back where the result is read, and the
caller's context variables (trace, request id) are the call's."""

from __future__ import annotations

import contextvars
import threading

import pytest

from graphwire.core.concurrency import Beside

_REQUEST = contextvars.ContextVar("request", default="none")


def test_the_value_comes_back_from_another_thread() -> None:
    caller = threading.get_ident()
    beside = Beside(lambda: (threading.get_ident(), 41 + 1))
    ident, value = beside.result()
    assert value == 42 and ident != caller


def test_the_exception_is_raised_where_the_result_is_read() -> None:
    def fail() -> int:
        raise LookupError("no such entity")

    beside = Beside(fail)
    with pytest.raises(LookupError, match="no such entity"):
        beside.result()


def test_the_callers_context_goes_with_the_call() -> None:
    token = _REQUEST.set("req-7")
    try:
        assert Beside(_REQUEST.get).result() == "req-7"
    finally:
        _REQUEST.reset(token)
