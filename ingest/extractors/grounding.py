"""What a chat model proposed for one chunk, checked against the schema and grounded in the chunk's text.

Both model-backed extractors (the built-in `LLMExtractor` and the optional `LangChainExtractor`) turn a reply into a
`Proposal` (entity and relationship dicts) and hand it to one `ProposalCheck`, so both keep and drop alike, and
count every drop by reason in the same `ExtractionStats`:
- labels and relationship types outside the schema, label pairs the schema does not allow;
- grounding: an entity whose name (and every alias) occurs nowhere in the chunk is dropped, with the relationships
  that name it; an evidence sentence the chunk does not contain is dropped (the relationship stays);
- names are restored to their spelling in the chunk.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from graphwire.core.clients.llm import parse_json_lenient
from graphwire.core.documents import Chunk
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.schema.model import GraphSchema


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
class Proposal:
    """What the model returned for one chunk, before any checking."""

    entities: list[dict[str, Any]]
    relationships: list[dict[str, Any]]

    @classmethod
    def of(cls, entities: Any, relationships: Any) -> Proposal:
        """From the reply's two lists as parsed (a list of objects, or nested JSON sent as a string)."""
        return cls(_dicts(entities), _dicts(relationships))


class ProposalCheck:
    """Keeps what the schema allows and the chunk grounds; `stats` counts the rest by reason (thread-safe)."""

    def __init__(self, schema: GraphSchema) -> None:
        self.schema = schema
        self.stats = ExtractionStats()
        self._lock = threading.Lock()
        self._labels = {label.lower(): label for label in schema.labels}
        self._types = {rel.lower(): rel for rel in schema.types}

    def check(self, chunk: Chunk, proposal: Proposal, extractor: str) -> Extraction:
        """The `Extraction` of `chunk` by `extractor`: what the schema allows and the chunk grounds."""
        dropped_entities, dropped_relations = Counter[str](), Counter[str]()
        entities, ungrounded = self._entities(proposal.entities, chunk.text, dropped_entities)
        relations = self._relations(proposal.relationships, entities, ungrounded, chunk.text, dropped_relations)
        with self._lock:
            _merge(self.stats.pruned_entities, dropped_entities)
            _merge(self.stats.pruned_relations, dropped_relations)
        return Extraction(chunk_id=chunk.id, entities=list(entities.values()), relations=relations, extractor=extractor)

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
        self.count(evidence_dropped=1)
        return None

    def fail(self, chunk: Chunk, reason: str, attempts: int, *, counted: bool = False) -> LLMExtractionFailure:
        """A failed chunk, counted (its retries too, unless the caller `counted` them already)."""
        self.count(chunks=1, failed=1, retries=0 if counted else max(0, attempts - 1))
        return LLMExtractionFailure(chunk.id, reason, attempts)

    def count(self, **deltas: int) -> None:
        with self._lock:
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
