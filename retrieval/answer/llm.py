"""`LLMAnswerer`: answers from a `RetrievalResult` with an OpenAI-compatible chat model, citing, or abstaining.

The model sees the question, the facts tagged [KEY]/[BRIDGE]/[DIRECT] (each with the excerpt numbers of its
provenance) and up to EXCERPT_CAP numbered excerpts of about EXCERPT_CHARS characters, all inside nonce-delimited data
blocks (`retrieval.prompts`). Its `[n]` markers become `Citation`s; markers that name no excerpt are dropped.

Abstention is exact: with no evidence the answerer abstains without calling the model; a reply that starts with
"Insufficient information" (any case or punctuation) becomes exactly `ABSTENTION` with no citations; so does an
empty reply. An LLM that cannot be reached after retries (or fails mid-stream) gives the abstention too, with
`llm_error` saying why (logged as well): the request still answers, and says the LLM failed.

The three forms of the `Answerer` protocol share the prompt and the reading of the reply; they differ only in the
`LLMClient` call: `chat` (blocking), `achat` (awaitable, cancellable) and `astream` (tokens as the model writes them).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from graphwire.core.clients.llm import ChatReply, LLMClient
from graphwire.core.clients.llm_retry import LLM_FAILURES, failure_reason
from graphwire.core.clients.llm_usage import UsageSnapshot
from graphwire.core.deadline import Deadline
from graphwire.core.settings import Settings
from graphwire.retrieval.models import (
    ABSTENTION,
    Answer,
    AnswerKind,
    Citation,
    Fact,
    FactTier,
    RankedChunk,
    RetrievalResult,
    Usage,
)
from graphwire.retrieval.prompts import ANSWER_PROMPT, answer_messages

log = logging.getLogger(__name__)
_TIER_ORDER = {FactTier.KEY: 0, FactTier.BRIDGE: 1, FactTier.DIRECT: 2}
_CITATION = re.compile(r"\[(\d{1,3})\]")
_ABSTAIN = re.compile(r"^\W*insufficient information\W*", re.IGNORECASE)


@dataclass(frozen=True)
class AnswerPrompt:
    messages: list[dict[str, str]]
    excerpts: list[RankedChunk]  # excerpt [n] of the prompt is excerpts[n - 1]


class LLMAnswerer:
    """The `Answerer` protocol over an OpenAI-compatible chat model."""

    def __init__(self, settings: Settings, client: LLMClient | None = None) -> None:
        self.client = client or LLMClient(settings)
        self.excerpt_cap = settings.excerpt_cap
        self.excerpt_chars = settings.excerpt_chars
        self.name = f"llm:{self.client.model}"
        self.prompt_version = ANSWER_PROMPT.id

    def answer(self, question: str, result: RetrievalResult) -> Answer:
        prompt = self.prompt(question, result)
        if prompt is None:
            return self._abstain(UsageSnapshot())
        try:
            reply = self.client.chat(prompt.messages)
        except LLM_FAILURES as exc:
            return self._failed(exc)
        return self._finish(reply, prompt.excerpts)

    async def aanswer(self, question: str, result: RetrievalResult, deadline: Deadline | None = None) -> Answer:
        prompt = self.prompt(question, result)
        if prompt is None:
            return self._abstain(UsageSnapshot())
        try:
            reply = await self.client.achat(prompt.messages, deadline=deadline)
        except LLM_FAILURES as exc:
            return self._failed(exc)
        return self._finish(reply, prompt.excerpts)

    async def astream(
        self, question: str, result: RetrievalResult, deadline: Deadline | None = None
    ) -> AsyncIterator[str | Answer]:
        """The model's tokens as it writes them, then the Answer `answer` would give for the whole reply (exact
        abstention, citations, usage); the tokens of a reply that failed midway are followed by the abstention."""
        prompt = self.prompt(question, result)
        if prompt is None:  # nothing to answer from: no model call
            abstained = self._abstain(UsageSnapshot())
            yield abstained.text
            yield abstained
            return
        reply: ChatReply | None = None
        try:
            async for item in self.client.astream(prompt.messages, deadline=deadline):
                if isinstance(item, str):
                    yield item
                else:
                    reply = item
        except LLM_FAILURES as exc:
            yield self._failed(exc)
            return
        assert reply is not None  # LLMClient.astream ends with the ChatReply
        yield self._finish(reply, prompt.excerpts)

    def prompt(self, question: str, result: RetrievalResult) -> AnswerPrompt | None:
        """The messages for the model and the excerpts they number; None when there is nothing to answer from."""
        excerpts = self._excerpts(result)
        facts = sorted(result.facts, key=lambda f: (_TIER_ORDER[f.tier], -f.score))
        if not excerpts and not facts:
            return None
        numbers = {chunk.chunk_id: i for i, chunk in enumerate(excerpts, start=1)}
        messages = answer_messages(question, render_facts(facts, numbers), self._render_excerpts(excerpts))
        return AnswerPrompt(messages=messages, excerpts=excerpts)

    def _finish(self, reply: ChatReply, excerpts: list[RankedChunk]) -> Answer:
        """The model's reply as an Answer: exact abstention, or the text with its [n] markers as citations."""
        text = " ".join(reply.text.split())
        if not text or _ABSTAIN.match(text):
            return self._abstain(reply.usage)
        return Answer(
            text=text,
            answerer=self.name,
            kind=AnswerKind.GENERATED,
            citations=cited(text, excerpts),
            usage=_usage(reply.usage),
        )

    def _failed(self, error: Exception) -> Answer:
        log.warning("LLM answerer failed, abstaining: %s", error)
        return Answer(text=ABSTENTION, answerer=self.name, llm_error=failure_reason(error))

    def _excerpts(self, result: RetrievalResult) -> list[RankedChunk]:
        unique: dict[str, RankedChunk] = {}
        for chunk in result.chunks:
            unique.setdefault(chunk.chunk_id, chunk)
        return list(unique.values())[: self.excerpt_cap]

    def _render_excerpts(self, excerpts: list[RankedChunk]) -> str:
        return "\n\n".join(render_excerpt(i, chunk, self.excerpt_chars) for i, chunk in enumerate(excerpts, start=1))

    def _abstain(self, usage: UsageSnapshot) -> Answer:
        return Answer(text=ABSTENTION, answerer=self.name, usage=_usage(usage))


def _usage(snapshot: UsageSnapshot) -> Usage:
    return Usage(
        llm_calls=snapshot.calls, prompt_tokens=snapshot.prompt_tokens, completion_tokens=snapshot.completion_tokens
    )


def render_facts(facts: list[Fact], numbers: dict[str, int]) -> str:
    lines = []
    for fact in facts:
        refs = sorted({numbers[c] for c in fact.chunk_ids if c in numbers})
        source = f" (excerpts {', '.join(str(n) for n in refs)})" if refs else ""
        lines.append(
            f"[{fact.tier.value}] {fact.subject} ({fact.subject_label}) -[{fact.relationship}]-> "
            f"{fact.object} ({fact.object_label}){source}"
        )
    return "\n".join(lines)


def render_excerpt(number: int, chunk: RankedChunk, max_chars: int) -> str:
    header = f"[{number}] {chunk.title} | {chunk.source or 'unknown outlet'} | {chunk.published_at or 'undated'}"
    body = " ".join(chunk.text.split())
    if len(body) > max_chars:
        body = body[:max_chars].rsplit(" ", 1)[0] + " ..."
    return f"{header}\n{body}"


def cited(text: str, excerpts: list[RankedChunk]) -> list[Citation]:
    """The excerpts the answer cites, in order of first citation; numbers outside the excerpt list are ignored."""
    citations: dict[str, Citation] = {}
    for match in _CITATION.finditer(text):
        number = int(match.group(1))
        if 1 <= number <= len(excerpts):
            chunk = excerpts[number - 1]
            citations.setdefault(chunk.chunk_id, Citation.of(chunk))
    return list(citations.values())
