"""`Deadline`: a point in time that several steps of one piece of work share (retrieval, then the LLM call).

Each step asks `remaining()` for the time it may still take, so the budgets compose: the request deadline covers
everything, a step never waits past it, and a retry that could not finish in time is not started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    at: float  # time.monotonic() value
    seconds: float  # the budget it was set with, for messages

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds, seconds)

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def cap(self, seconds: float) -> float:
        """`seconds`, or less when the deadline comes first."""
        return min(seconds, self.remaining())
