"""`LLMExtractor`: schema-restricted extraction with LLMGraphTransformer over any OpenAI-compatible chat model.

LLMGraphTransformer is imported here and nowhere else. It comes from `langchain-neo4j` (the maintained copy of
langchain-experimental's class, same constructor; langchain-experimental is being sunset). It is configured with
allowed_nodes = the schema's labels, allowed_relationships = the schema's (source, type, target) patterns,
strict_mode=True and additional_instructions = `schema.describe()`; in the tool-calling modes each relationship also
carries an `evidence` property (the supporting sentence).

Around the transformer this module adds what the transformer does not do:
- bounded concurrency (LLM_CONCURRENCY threads) and retries with exponential backoff on timeouts, connection errors,
  429 (honouring Retry-After) and 5xx (`core.llm.with_retries`);
- JSON repair: the raw reply is captured with a callback; when the transformer could not parse it (malformed tool
  arguments: code fences, trailing commas, truncation) it is repaired and parsed here;
- case restoration: the transformer title-cases node ids ("OpenAI" -> "Openai"); names are restored to their
  spelling in the chunk;
- pruning against the schema with counts per reason (`stats`): the transformer's strict mode drops off-schema output
  silently, so the raw reply is classified here too;
- grounded evidence: an `evidence` sentence the chunk does not contain is dropped (the relationship stays);
- one `LLMExtractionFailure` (an `ExtractionFailure` with `attempts`) per chunk that still fails.
"""

from __future__ import annotations

import re
import threading
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import openai
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from langchain_neo4j.graph_transformers.llm import LLMGraphTransformer
from pydantic import BaseModel, Field

from graphwire.core.documents import Chunk
from graphwire.core.llm import RetriesExhausted, RetryPolicy, UsageCounter, chat_model, parse_json_lenient, with_retries
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.schema.model import GraphSchema

# Part of the cache key: bump when the output for the same reply changes (setup, instructions, post-processing).
PROMPT_VERSION = "lgt-2"


class LLMExtractionFailure(ExtractionFailure):
    def __init__(self, chunk_id: str, reason: str, attempts: int) -> None:
        super().__init__(chunk_id, reason)
        self.attempts = attempts


class ExtractionStats(BaseModel):
    """Totals over the extractor's lifetime; the ingestion summary reads them."""

    chunks: int = 0
    failed: int = 0
    retries: int = 0
    repaired: int = 0  # replies the transformer could not parse that JSON repair recovered
    evidence_dropped: int = 0  # evidence sentences the chunk does not contain (relationship kept, evidence not)
    pruned_nodes: dict[str, int] = Field(default_factory=dict)  # reason -> count
    pruned_relations: dict[str, int] = Field(default_factory=dict)


@dataclass(frozen=True)
class _Node:
    name: str
    label: str


@dataclass(frozen=True)
class _Rel:
    source: _Node
    type: str
    target: _Node
    evidence: str | None = None


@dataclass
class _Candidates:
    nodes: list[_Node]
    rels: list[_Rel]

    @property
    def empty(self) -> bool:
        return not self.nodes and not self.rels


class _RawReply(BaseCallbackHandler):
    """Keeps the last chat message the model returned, before the transformer parses and filters it."""

    def __init__(self) -> None:
        self.message: BaseMessage | None = None

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        self.message = getattr(generation, "message", None)


class LLMExtractor:
    """The `Extractor` protocol over an OpenAI-compatible chat model."""

    def __init__(self, settings: Settings, schema: GraphSchema, usage: UsageCounter | None = None) -> None:
        self.settings = settings
        self.schema = schema
        self.usage = usage or UsageCounter()
        self.policy = RetryPolicy.from_settings(settings)
        self.name = f"llm:{settings.llm_model}"
        self.version = f"{PROMPT_VERSION}-{settings.llm_extraction_mode}"
        self.schema_fingerprint = schema.fingerprint
        self.stats = ExtractionStats()
        self._stats_lock = threading.Lock()
        self._labels = {label.lower(): label for label in schema.labels}
        self._types = {rel.lower(): rel for rel in schema.types}
        self.transformer = self._build_transformer()

    def _build_transformer(self) -> LLMGraphTransformer:
        uses_tools = self.settings.llm_extraction_mode != "prompt"
        with warnings.catch_warnings():  # the transformer builds its models with a pydantic-v1-style Field(enum=...)
            warnings.filterwarnings("ignore", message="Using extra keyword arguments on `Field`")
            return self._transformer(uses_tools)

    def _transformer(self, uses_tools: bool) -> LLMGraphTransformer:
        return LLMGraphTransformer(
            llm=chat_model(self.settings, self.usage),
            allowed_nodes=self.schema.labels,
            allowed_relationships=[(p.source, p.type, p.target) for p in self.schema.patterns],
            strict_mode=True,
            relationship_properties=["evidence"] if uses_tools else False,
            ignore_tool_usage=not uses_tools,
            # the transformer puts this text into a prompt template: literal braces must be doubled
            additional_instructions=self.schema.describe().replace("{", "{{").replace("}", "}}"),
        )

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        workers = max(1, min(self.settings.llm_concurrency, len(chunks)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm-extract") as pool:
            return list(pool.map(self._extract_one, chunks))

    def _extract_one(self, chunk: Chunk) -> Extraction | ExtractionFailure:
        capture = _RawReply()
        document = Document(page_content=chunk.text)
        try:
            graph_doc, attempts = with_retries(
                lambda: self.transformer.process_response(document, config={"callbacks": [capture]}),
                self.policy,
                on_retry=lambda *_: self._count(retries=1),
            )
        except RetriesExhausted as exc:
            return self._fail(chunk, str(exc), exc.attempts)
        except openai.APIError as exc:  # 400, 401, 404...: retrying will not help
            return self._fail(chunk, f"{type(exc).__name__}: {exc}", 1)
        raw = _raw_candidates(capture.message)
        kept = _graph_doc_candidates(graph_doc)
        if kept.empty and raw is not None and not raw.empty:
            kept = raw  # the transformer could not parse the reply; JSON repair could
            self._count(repaired=1)
        elif kept.empty and raw is None and _has_payload(capture.message):
            return self._fail(chunk, "unparseable model output", attempts)
        entities, relations = self._prune(kept, raw or kept, chunk.text)
        self._count(chunks=1)
        return Extraction(chunk_id=chunk.id, entities=entities, relations=relations, extractor=self.name)

    def _fail(self, chunk: Chunk, reason: str, attempts: int) -> LLMExtractionFailure:
        self._count(chunks=1, failed=1)
        return LLMExtractionFailure(chunk.id, reason, attempts)

    def _count(self, **deltas: int) -> None:
        with self._stats_lock:
            for key, delta in deltas.items():
                setattr(self.stats, key, getattr(self.stats, key) + delta)

    def _label(self, label: str) -> str | None:
        return self._labels.get(label.strip().lower())

    def _prune(
        self, kept: _Candidates, raw: _Candidates, text: str
    ) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        """Keep only what the schema allows; count what the model proposed that it does not (by reason)."""
        node_reasons, rel_reasons = Counter[str](), Counter[str]()
        for node in raw.nodes:
            if self._label(node.label) is None:
                node_reasons["off-schema label"] += 1
        for rel in raw.rels:
            if (reason := self._rel_problem(rel)) is not None:
                rel_reasons[reason] += 1
        with self._stats_lock:
            _merge(self.stats.pruned_nodes, node_reasons)
            _merge(self.stats.pruned_relations, rel_reasons)
        return self._entities(kept, text), self._relations(kept, text)

    def _rel_problem(self, rel: _Rel) -> str | None:
        source, target = self._label(rel.source.label), self._label(rel.target.label)
        rel_type = self._types.get(rel.type.strip().lower().replace(" ", "_"))
        if source is None or target is None:
            return "off-schema endpoint label"
        if rel_type is None:
            return "off-schema relationship type"
        if not self.schema.allows(source, rel_type, target):
            return "pattern not allowed"
        return None

    def _grounded(self, evidence: str | None, text: str) -> str | None:
        """The evidence only when the chunk contains it (whitespace and case aside): provenance must be quotable."""
        if not evidence:
            return None
        if " ".join(evidence.split()).lower() in " ".join(text.split()).lower():
            return evidence
        self._count(evidence_dropped=1)
        return None

    def _entities(self, kept: _Candidates, text: str) -> list[ExtractedEntity]:
        found: dict[tuple[str, str], ExtractedEntity] = {}
        endpoints = [n for r in kept.rels if self._rel_problem(r) is None for n in (r.source, r.target)]
        for node in [*kept.nodes, *endpoints]:
            label = self._label(node.label)
            name = restore_case(node.name, text)
            if label is None or not name:
                continue
            found.setdefault(
                (name.lower(), label), ExtractedEntity(name=name, label=label, mentions=_count(name, text))
            )
        return list(found.values())

    def _relations(self, kept: _Candidates, text: str) -> list[ExtractedRelation]:
        out: dict[tuple[str, str, str, str, str], ExtractedRelation] = {}
        for rel in kept.rels:
            if self._rel_problem(rel) is not None:
                continue
            source, target = restore_case(rel.source.name, text), restore_case(rel.target.name, text)
            if not source or not target:
                continue
            relation = ExtractedRelation(
                source=source,
                source_label=self._labels[rel.source.label.strip().lower()],
                type=self._types[rel.type.strip().lower().replace(" ", "_")],
                target=target,
                target_label=self._labels[rel.target.label.strip().lower()],
                evidence=self._grounded(rel.evidence, text),
            )
            key = (
                relation.source.lower(),
                relation.source_label,
                relation.type,
                relation.target.lower(),
                relation.target_label,
            )
            out.setdefault(key, relation)
        return list(out.values())


def _merge(totals: dict[str, int], counts: Counter[str]) -> None:
    for reason, n in counts.items():
        totals[reason] = totals.get(reason, 0) + n


def _count(name: str, text: str) -> int:
    return max(1, len(re.findall(re.escape(name), text, flags=re.IGNORECASE)))


def restore_case(name: str, text: str) -> str:
    """The chunk's own spelling of `name` when it occurs there case-insensitively (undoes the transformer's
    title-casing of "OpenAI" to "Openai"), else `name` stripped."""
    name = " ".join(name.split())
    if not name:
        return ""
    match = re.search(re.escape(name).replace(r"\ ", r"\s+"), text, flags=re.IGNORECASE)
    return " ".join(match.group(0).split()) if match else name


def _graph_doc_candidates(graph_doc: Any) -> _Candidates:
    nodes = [_Node(str(n.id), str(n.type)) for n in graph_doc.nodes]
    rels = [
        _Rel(
            _Node(str(r.source.id), str(r.source.type)),
            str(r.type),
            _Node(str(r.target.id), str(r.target.type)),
            _evidence(r.properties.get("evidence")),
        )
        for r in graph_doc.relationships
    ]
    return _Candidates(nodes, rels)


def _evidence(value: Any) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) and value.strip() else None


def _has_payload(message: BaseMessage | None) -> bool:
    if message is None:
        return False
    tool_calls = getattr(message, "tool_calls", None) or getattr(message, "invalid_tool_calls", None)
    return bool(tool_calls) or bool(str(message.content).strip())


def _raw_candidates(message: BaseMessage | None) -> _Candidates | None:
    """What the model proposed, before any filtering: tool-call arguments (repaired if invalid) or JSON content.

    None when the message carries nothing parseable."""
    if message is None:
        return None
    tool_calls = getattr(message, "tool_calls", None) or []
    invalid = getattr(message, "invalid_tool_calls", None) or []
    if tool_calls:
        payload: Any = tool_calls[0].get("args")
    elif invalid:
        payload = parse_json_lenient(str(invalid[0].get("args") or ""))
    else:
        payload = parse_json_lenient(str(message.content))
    if isinstance(payload, dict) and ("nodes" in payload or "relationships" in payload):
        return _from_tool_args(payload)
    if isinstance(payload, dict):
        payload = [payload]
    if isinstance(payload, list):
        return _from_triples(payload)
    return None


def _items(value: Any) -> Iterable[dict[str, Any]]:
    if isinstance(value, str):  # some servers send nested JSON as a string
        value = parse_json_lenient(value)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _from_tool_args(args: dict[str, Any]) -> _Candidates:
    nodes = [_Node(str(n["id"]), str(n.get("type") or "")) for n in _items(args.get("nodes")) if n.get("id")]
    types = {node.name: node.label for node in nodes}
    rels: list[_Rel] = []
    for r in _items(args.get("relationships")):
        source, target, rel_type = r.get("source_node_id"), r.get("target_node_id"), r.get("type")
        if not (source and target and rel_type):
            continue
        props = {p.get("key"): p.get("value") for p in _items(r.get("properties"))}
        rels.append(
            _Rel(
                _Node(str(source), str(r.get("source_node_type") or types.get(str(source), ""))),
                str(rel_type),
                _Node(str(target), str(r.get("target_node_type") or types.get(str(target), ""))),
                _evidence(props.get("evidence")),
            )
        )
    return _Candidates(nodes, rels)


def _from_triples(items: list[Any]) -> _Candidates:
    """The prompt-and-parse format: [{head, head_type, relation, tail, tail_type}, ...]."""
    nodes: list[_Node] = []
    rels: list[_Rel] = []
    for item in items:
        if not isinstance(item, dict) or not (item.get("head") and item.get("tail") and item.get("relation")):
            continue
        head = _Node(str(item["head"]), str(item.get("head_type") or ""))
        tail = _Node(str(item["tail"]), str(item.get("tail_type") or ""))
        nodes += [head, tail]
        rels.append(_Rel(head, str(item["relation"]), tail, _evidence(item.get("evidence"))))
    return _Candidates(list(dict.fromkeys(nodes)), rels)
