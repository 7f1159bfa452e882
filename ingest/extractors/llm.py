"""`LLMExtractor`: schema-restricted extraction over any OpenAI-compatible chat model, one call per chunk.

The prompt is `llm_prompt`'s: the schema once and compact (a fixed system message a server can cache), the chunk
alone in the user message. LLM_EXTRACTION_MODE says how the reply's structure is asked for:
- `json_schema`: `response_format` with the reply's JSON schema (labels and types as enums, `maxItems` bounds);
- `tools`: one forced function call whose parameters are that schema;
- `prompt`: the prompt alone, for servers with neither; the JSON is parsed and repaired.
Every call has a completion cap that fits the bounds (LLM_MAX_TOKENS overrides it), so none runs without an end.

What the model proposes is checked here, and everything dropped is counted by reason (`stats`):
- labels and relationship types outside the schema, label pairs the schema does not allow;
- grounding: an entity whose name (and every alias) occurs nowhere in the chunk is dropped, with the relationships
  that name it; an evidence sentence the chunk does not contain is dropped (the relationship stays);
- names are restored to their spelling in the chunk;
- a reply that is not valid JSON is repaired when it can be (`repaired`), a reply cut by the cap is `truncated`;
- a chunk that still fails (retries exhausted, a 4xx, nothing parseable) yields an `LLMExtractionFailure` with its
  reason and attempts; the rest of the batch goes on.
Retries (timeouts, connection errors, 429 with Retry-After, 5xx) are `core.llm`'s policy; calls run LLM_CONCURRENCY
at a time.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import openai
from pydantic import BaseModel, Field

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
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.schema.model import GraphSchema

_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$")


class LLMExtractionFailure(ExtractionFailure):
    def __init__(self, chunk_id: str, reason: str, attempts: int) -> None:
        super().__init__(chunk_id, reason)
        self.attempts = attempts


class ExtractionStats(BaseModel):
    """Totals over the extractor's lifetime; the ingestion summary and the progress bar read them."""

    chunks: int = 0
    failed: int = 0
    retries: int = 0  # attempts after the first (timeouts, 429, 5xx)
    repaired: int = 0  # replies that were not valid JSON and that JSON repair recovered
    truncated: int = 0  # replies the completion cap cut short (what was complete is kept)
    evidence_dropped: int = 0  # evidence sentences the chunk does not contain (relationship kept, evidence not)
    pruned_entities: dict[str, int] = Field(default_factory=dict)  # reason -> count
    pruned_relations: dict[str, int] = Field(default_factory=dict)

    def totals(self) -> dict[str, int]:
        """Flat counts for a summary table: what was retried, repaired, truncated and dropped, by reason."""
        out = {
            "failed chunks": self.failed,
            "retried calls": self.retries,
            "repaired replies": self.repaired,
            "truncated replies": self.truncated,
            "evidence dropped (not in the chunk)": self.evidence_dropped,
        }
        out |= {f"entities dropped: {reason}": n for reason, n in sorted(self.pruned_entities.items())}
        out |= {f"relationships dropped: {reason}": n for reason, n in sorted(self.pruned_relations.items())}
        return out


@dataclass(frozen=True)
class _Proposal:
    """What the model returned for one chunk, before any checking."""

    entities: list[dict[str, Any]]
    relationships: list[dict[str, Any]]


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
        self.stats = ExtractionStats()
        self._stats_lock = threading.Lock()
        self._system = llm_prompt.system_prompt(schema)
        self._labels = {label.lower(): label for label in schema.labels}
        self._types = {rel.lower(): rel for rel in schema.types}

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
            return self._fail(chunk, str(exc), exc.attempts)
        except openai.APIError as exc:  # 400, 401, 404...: retrying will not help
            return self._fail(chunk, f"{type(exc).__name__}: {exc}", 1)
        self._count(retries=reply.attempts - 1, truncated=int(reply.finish_reason == "length"))
        proposal = self._parse(reply)
        if proposal is None:
            cut = " (cut at the completion cap; raise LLM_MAX_TOKENS)" if reply.finish_reason == "length" else ""
            return self._fail(chunk, f"unparseable model output{cut}", reply.attempts, counted=True)
        self._count(chunks=1)
        return self.check(chunk, proposal)

    def _parse(self, reply: ChatReply) -> _Proposal | None:
        text = reply.tool_arguments if reply.tool_arguments is not None else reply.text
        stripped = _FENCE.sub("", text).strip()
        try:
            payload: Any = json.loads(stripped)
        except json.JSONDecodeError:
            payload = parse_json_lenient(stripped)
            if payload is not None:
                self._count(repaired=1)
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
        return _Proposal(_dicts(entities), _dicts(relationships))

    def check(self, chunk: Chunk, proposal: _Proposal) -> Extraction:
        """Keep what the schema allows and the chunk grounds; count the rest by reason."""
        dropped_entities, dropped_relations = Counter[str](), Counter[str]()
        entities, ungrounded = self._entities(proposal.entities, chunk.text, dropped_entities)
        relations = self._relations(proposal.relationships, entities, ungrounded, chunk.text, dropped_relations)
        with self._stats_lock:
            _merge(self.stats.pruned_entities, dropped_entities)
            _merge(self.stats.pruned_relations, dropped_relations)
        return Extraction(chunk_id=chunk.id, entities=list(entities.values()), relations=relations, extractor=self.name)

    def _entities(
        self, items: list[dict[str, Any]], text: str, dropped: Counter[str]
    ) -> tuple[dict[str, ExtractedEntity], set[str]]:
        """Entities by every lower-cased name they go by, and the names dropped as not in the chunk."""
        kept: dict[str, ExtractedEntity] = {}
        ungrounded: set[str] = set()
        for item in items:
            name, label = _clean(item.get("name")), self._labels.get(_clean(item.get("label")).lower())
            if not name:
                continue
            if label is None:
                dropped["off-schema label"] += 1
                continue
            aliases = [a for a in dict.fromkeys(_clean(a) for a in _strings(item.get("aliases"))) if a]
            grounded_aliases = [restore_case(a, text) for a in aliases if occurs(a, text)]
            if not occurs(name, text) and not grounded_aliases:
                dropped["name not in the chunk"] += 1
                ungrounded.update(n.lower() for n in (name, *aliases))
                continue
            if name.lower() in kept:
                continue  # the same name twice: the first label wins, so relationships resolve to one entity
            spelled = restore_case(name, text)
            entity = ExtractedEntity(
                name=spelled,
                label=label,
                aliases=[a for a in grounded_aliases if a.lower() != spelled.lower()],
                mentions=_count(spelled, text),
            )
            for key in (name.lower(), *(a.lower() for a in entity.aliases)):
                kept.setdefault(key, entity)
        return kept, ungrounded

    def _relations(
        self,
        items: list[dict[str, Any]],
        entities: dict[str, ExtractedEntity],
        ungrounded: set[str],
        text: str,
        dropped: Counter[str],
    ) -> list[ExtractedRelation]:
        out: dict[tuple[str, str, str], ExtractedRelation] = {}
        for item in items:
            source_name, target_name = _clean(item.get("source")).lower(), _clean(item.get("target")).lower()
            rel_type = self._types.get(_clean(item.get("type")).lower().replace(" ", "_"))
            source, target = entities.get(source_name), entities.get(target_name)
            if rel_type is None:
                dropped["off-schema relationship type"] += 1
            elif source is None or target is None:
                missing = {source_name, target_name} & ungrounded
                dropped["endpoint not in the chunk" if missing else "endpoint not among the entities"] += 1
            elif source is target:
                dropped["same entity at both ends"] += 1
            elif not self.schema.allows(source.label, rel_type, target.label):
                dropped["label pair not allowed"] += 1
            else:
                key = (source.name.lower(), rel_type, target.name.lower())
                relation = ExtractedRelation(
                    source=source.name,
                    source_label=source.label,
                    type=rel_type,
                    target=target.name,
                    target_label=target.label,
                    evidence=self._grounded_evidence(item.get("evidence"), text),
                )
                if key not in out or (relation.evidence and not out[key].evidence):
                    out[key] = relation
        return list(out.values())

    def _grounded_evidence(self, evidence: Any, text: str) -> str | None:
        """The evidence only when the chunk contains it (whitespace and case aside): provenance must be quotable."""
        sentence = _clean(evidence)
        if not sentence:
            return None
        if sentence.lower() in " ".join(text.split()).lower():
            return sentence
        self._count(evidence_dropped=1)
        return None

    def _fail(self, chunk: Chunk, reason: str, attempts: int, *, counted: bool = False) -> LLMExtractionFailure:
        self._count(chunks=1, failed=1, retries=0 if counted else max(0, attempts - 1))
        return LLMExtractionFailure(chunk.id, reason, attempts)

    def _count(self, **deltas: int) -> None:
        with self._stats_lock:
            for key, delta in deltas.items():
                setattr(self.stats, key, getattr(self.stats, key) + delta)


def occurs(name: str, text: str) -> bool:
    """`name` appears in `text` as written, case and whitespace aside, not inside a longer word."""
    return _find(name, text) is not None


def restore_case(name: str, text: str) -> str:
    """The chunk's own spelling of `name` when it occurs there case-insensitively, else `name` tidied."""
    name = " ".join(name.split())
    match = _find(name, text) if name else None
    return " ".join(match.group(0).split()) if match else name


def _find(name: str, text: str) -> re.Match[str] | None:
    words = name.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    return re.search(rf"(?<!\w){pattern}(?!\w)", text, flags=re.IGNORECASE)


def _merge(totals: dict[str, int], counts: Counter[str]) -> None:
    for reason, n in counts.items():
        totals[reason] = totals.get(reason, 0) + n


def _count(name: str, text: str) -> int:
    words = name.split()
    pattern = r"\s+".join(re.escape(w) for w in words)
    return max(1, len(re.findall(rf"(?<!\w){pattern}(?!\w)", text, flags=re.IGNORECASE)))


def _clean(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _dicts(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):  # nested JSON sent as a string
        value = parse_json_lenient(value)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
