"""`LLMExtractor`: schema-restricted extraction over any OpenAI-compatible chat model, one call per chunk.

The prompt is `llm_prompt`'s: the schema once and compact (a fixed system message a server can cache), the chunk
alone in the user message. LLM_EXTRACTION_MODE says how the reply's structure is asked for:
- `json_schema`: `response_format` with the reply's JSON schema (labels and types as enums, `maxItems` bounds);
- `tools`: one forced function call whose parameters are that schema;
- `prompt`: the prompt alone, for servers with neither; the JSON is parsed and repaired.
Every call has a completion cap that fits the bounds (LLM_MAX_TOKENS overrides it), so none runs without an end.

What the model proposes is checked by `grounding.ProposalCheck` (the schema, names and evidence grounded in the
chunk), and everything dropped is counted by reason (`stats`); here:
- a reply that is not valid JSON is repaired when it can be (`repaired`), a reply cut by the cap is `truncated`;
- a chunk that still fails (retries exhausted, a 4xx, nothing parseable) yields an `LLMExtractionFailure` with its
  reason and attempts; the rest of the batch goes on.
Retries (timeouts, connection errors, 429 with Retry-After, 5xx) are `core.llm`'s policy; calls run LLM_CONCURRENCY
at a time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai

from graphwire.core.clients.llm import (
    EXTRACTION_MODES,
    ChatOptions,
    ChatReply,
    LLMClient,
    parse_json_lenient,
)
from graphwire.core.clients.llm_retry import RetriesExhausted
from graphwire.core.clients.llm_usage import UsageCounter
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.extractors import llm_prompt
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.extractors.grounding import Proposal, ProposalCheck
from graphwire.ingest.models import Extraction
from graphwire.schema.model import GraphSchema

_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$")


class LLMExtractor:
    """The `Extractor` protocol over an OpenAI-compatible chat model."""

    def __init__(
        self,
        settings: Settings,
        schema: GraphSchema,
        usage: UsageCounter | None = None,
        client: LLMClient | None = None,
    ) -> None:
        if settings.llm_extraction_mode not in EXTRACTION_MODES:
            raise ValueError(
                f"LLM_EXTRACTION_MODE must be one of {EXTRACTION_MODES}, not {settings.llm_extraction_mode!r}"
            )
        self.settings = settings
        self.schema = schema
        self.mode = settings.llm_extraction_mode
        self.client = client or LLMClient(settings, usage)
        self.usage = self.client.usage
        self.name = f"llm:{settings.llm_model}"
        self.version = f"{llm_prompt.PROMPT_VERSION}-{self.mode}"
        self.schema_fingerprint = schema.fingerprint
        self.checks = ProposalCheck(schema)
        self.stats = self.checks.stats
        self._system = llm_prompt.system_prompt(schema)

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        workers = max(1, min(self.settings.llm_concurrency, len(chunks)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm-extract") as pool:
            return list(pool.map(self._extract_one, chunks))

    def messages(self, text: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": self._system}, {"role": "user", "content": llm_prompt.user_message(text)}]

    def options(self, text: str) -> ChatOptions:
        """The structured-output request of this mode, bounded for this chunk."""
        bounds = llm_prompt.bounds_for(text, self.settings.llm_max_tokens)
        if self.mode == "json_schema":
            return ChatOptions(
                response_format=llm_prompt.response_format(self.schema, bounds), max_tokens=bounds.max_tokens
            )
        if self.mode == "tools":
            choice = {"type": "function", "function": {"name": llm_prompt.TOOL_NAME}}
            return ChatOptions(
                tools=[llm_prompt.tool(self.schema, bounds)], tool_choice=choice, max_tokens=bounds.max_tokens
            )
        return ChatOptions(max_tokens=bounds.max_tokens)

    def _extract_one(self, chunk: Chunk) -> Extraction | ExtractionFailure:
        try:
            reply = self.client.chat(self.messages(chunk.text), options=self.options(chunk.text))
        except RetriesExhausted as exc:
            return self.checks.fail(chunk, str(exc), exc.attempts)
        except openai.APIError as exc:  # 400, 401, 404...: retrying will not help
            return self.checks.fail(chunk, f"{type(exc).__name__}: {exc}", 1)
        self.checks.count(retries=reply.attempts - 1, truncated=int(reply.finish_reason == "length"))
        proposal = self._parse(reply)
        if proposal is None:
            cut = " (cut at the completion cap; raise LLM_MAX_TOKENS)" if reply.finish_reason == "length" else ""
            return self.checks.fail(chunk, f"unparseable model output{cut}", reply.attempts, counted=True)
        self.checks.count(chunks=1)
        return self.check(chunk, proposal)

    def _parse(self, reply: ChatReply) -> Proposal | None:
        text = reply.tool_arguments if reply.tool_arguments is not None else reply.text
        stripped = _FENCE.sub("", text).strip()
        try:
            payload: Any = json.loads(stripped)
        except json.JSONDecodeError:
            payload = parse_json_lenient(stripped)
            if payload is not None:
                self.checks.count(repaired=1)
        if isinstance(payload, dict) and "arguments" in payload:  # a tool call the server left as text
            payload = payload["arguments"]
        if isinstance(payload, str):  # some servers send the arguments as a JSON string inside JSON
            payload = parse_json_lenient(payload)
        if not isinstance(payload, dict):
            return None
        entities = payload.get("entities", payload.get("nodes"))
        relationships = payload.get("relationships", payload.get("relations"))
        if entities is None and relationships is None:
            return None
        return Proposal.of(entities, relationships)

    def check(self, chunk: Chunk, proposal: Proposal) -> Extraction:
        """Keep what the schema allows and the chunk grounds; count the rest by reason."""
        return self.checks.check(chunk, proposal, self.name)
