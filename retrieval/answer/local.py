"""`LocalAnswerer`: the awaitable and streamed forms of an answerer that needs no LLM (the extractive one).

Its `answer` is CPU work of milliseconds: awaited, it runs in the worker-thread pool (with the caller's context, so
usage counting still sees it); streamed, its text is one piece. There is no call to cancel and no deadline to keep.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from anyio import to_thread

from graphwire.core.deadline import Deadline
from graphwire.retrieval.models import Answer, RetrievalResult


class LocalAnswerer:
    """Mix-in: subclasses define `name` and `answer`; `aanswer` and `astream` come from it."""

    name: str

    def answer(self, question: str, result: RetrievalResult) -> Answer:
        raise NotImplementedError

    async def aanswer(self, question: str, result: RetrievalResult, deadline: Deadline | None = None) -> Answer:
        return await to_thread.run_sync(self.answer, question, result)

    async def astream(
        self, question: str, result: RetrievalResult, deadline: Deadline | None = None
    ) -> AsyncIterator[str | Answer]:
        answer = await self.aanswer(question, result, deadline)
        yield answer.text
        yield answer
