"""The two small interfaces every retrieval mode and every answerer implements.

An `Answerer` gives the same `Answer` three ways, and callers (the API's /v1/query, its event stream, the chat
completions, the CLI, the evaluation harness) use only these, whatever answers:

- `answer`: blocking;
- `aanswer`: awaitable; cancel the awaiting task and the answerer's LLM call is abandoned (its HTTP connection closed);
- `astream`: the answer's text in pieces as it is produced, then the `Answer` itself; stop consuming it and the same.

`deadline` bounds the LLM answerer's call (no attempt or retry outlives it). An answer given while the LLM failed is an
abstention whose `llm_error` says why (`Answer.status` is `llm_failed`), never a silent one. Answerers that need no
LLM inherit the awaitable and streamed forms from `retrieval.answer.local.LocalAnswerer`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from graphwire.core.deadline import Deadline
from graphwire.retrieval.models import Answer, RetrievalResult


class Retriever(Protocol):
    name: str

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult: ...


class Answerer(Protocol):
    name: str

    def answer(self, question: str, result: RetrievalResult) -> Answer: ...

    async def aanswer(self, question: str, result: RetrievalResult, deadline: Deadline | None = None) -> Answer: ...

    def astream(
        self, question: str, result: RetrievalResult, deadline: Deadline | None = None
    ) -> AsyncIterator[str | Answer]: ...
