"""`CheckedAnswerer`: the one door answer checking goes through, a decorator over any `Answerer`.

`RetrievalContext.answerer` wraps every answerer it builds in it (unless ANSWER_CHECK is off), so /v1/query (its JSON
and its event stream), the chat completions, the CLI, the Python API's `ask` and the evaluation harness all get
answers with `Answer.check` (`retrieval.answer.checking`). The check runs once the answer is complete: streamed, the
answer's pieces pass through as they come and the checked `Answer` ends the stream.

With ANSWER_DROP_UNSUPPORTED the flagged sentences are removed from the text (`AnswerCheck.dropped` counts them) and
citations whose `[n]` marker went with them are dropped too; when every sentence is flagged the answer is the
abstention. Streamed, the pieces are then held back and the kept text comes as one piece, so what a client streamed
is the answer it gets.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

from anyio import to_thread

from graphwire.core.deadline import Deadline
from graphwire.retrieval.answer.check_vocabulary import RelationVocabulary
from graphwire.retrieval.answer.checking import check_answer
from graphwire.retrieval.base import Answerer
from graphwire.retrieval.models import ABSTENTION, Answer, Citation, RetrievalResult

_MARKER = re.compile(r"\[(\d{1,3})\]")


class CheckedAnswerer:
    """The `Answerer` protocol over `inner`, each answer checked (and, with `drop_unsupported`, pruned)."""

    def __init__(
        self, inner: Answerer, vocabulary: RelationVocabulary | None = None, drop_unsupported: bool = False
    ) -> None:
        """`vocabulary`: the schema's words for each relationship (`RelationVocabulary.of(schema)`)."""
        self.inner = inner
        self.name = inner.name
        self.vocabulary = vocabulary
        self.drop_unsupported = drop_unsupported

    def answer(self, question: str, result: RetrievalResult) -> Answer:
        return self.checked(question, result, self.inner.answer(question, result))

    async def aanswer(self, question: str, result: RetrievalResult, deadline: Deadline | None = None) -> Answer:
        answer = await self.inner.aanswer(question, result, deadline)
        return await to_thread.run_sync(self.checked, question, result, answer)

    async def astream(
        self, question: str, result: RetrievalResult, deadline: Deadline | None = None
    ) -> AsyncIterator[str | Answer]:
        async for item in self.inner.astream(question, result, deadline):
            if isinstance(item, str):
                if not self.drop_unsupported:
                    yield item
                continue
            answer = await to_thread.run_sync(self.checked, question, result, item)
            if self.drop_unsupported:
                yield answer.text
            yield answer

    def checked(self, question: str, result: RetrievalResult, answer: Answer) -> Answer:
        """`answer` with its check; pruned of unsupported sentences when `drop_unsupported`."""
        check = check_answer(question, answer, result, self.vocabulary)
        if not self.drop_unsupported or not check.unsupported:
            return answer.model_copy(update={"check": check})
        kept = [s.text for s in check.sentences if s.supported]
        check = check.model_copy(update={"dropped": check.unsupported})
        if not kept:
            return answer.model_copy(update={"text": ABSTENTION, "citations": [], "check": check})
        text = " ".join(kept)
        citations = _still_cited(answer, text, result)
        return answer.model_copy(update={"text": text, "citations": citations, "check": check})


def _still_cited(answer: Answer, text: str, result: RetrievalResult) -> list[Citation]:
    """The citations whose [n] (the chunk's rank among the retrieved chunks, as the LLM numbers its excerpts) is still
    in `text`; all of them when the answer has no markers (the extractive answerer cites without)."""
    if not _MARKER.search(answer.text):
        return answer.citations
    ranks: dict[str, int] = {}
    for chunk in result.chunks:
        ranks.setdefault(chunk.chunk_id, len(ranks) + 1)
    numbers = {int(n) for n in _MARKER.findall(text)}
    return [c for c in answer.citations if ranks.get(c.chunk_id) in numbers]
