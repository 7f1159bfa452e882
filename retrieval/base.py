"""The two small interfaces every retrieval mode and every answerer implements."""

from __future__ import annotations

from typing import Protocol

from graphwire.retrieval.models import Answer, RetrievalResult


class Retriever(Protocol):
    name: str

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult: ...


class Answerer(Protocol):
    name: str

    def answer(self, question: str, result: RetrievalResult) -> Answer: ...
