"""Typed view of a schema file, with the checks that keep extraction inside it."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

import yaml
from pydantic import BaseModel, Field, model_validator

_IDENT = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_REL_IDENT = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Labels and types graphwire itself writes beside the extracted ones; a schema may not reuse them.
RESERVED_LABELS = frozenset({"Entity", "Document", "Chunk", "Date"})
RESERVED_TYPES = frozenset({"MENTIONS", "HAS_CHUNK", "PUBLISHED_ON", "NEXT_DAY"})


class Pattern(NamedTuple):
    source: str
    type: str
    target: str


class GraphSchema(BaseModel):
    """A closed schema: only these labels, types and (source, type, target) patterns may enter the graph."""

    name: str
    version: str
    node_labels: dict[str, str] = Field(min_length=1)
    relationship_types: dict[str, str] = Field(min_length=1)
    patterns: list[Pattern] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_consistency(self) -> GraphSchema:
        for label in self.node_labels:
            if not _IDENT.match(label) or label in RESERVED_LABELS:
                raise ValueError(f"invalid or reserved node label {label!r}")
        for rel in self.relationship_types:
            if not _REL_IDENT.match(rel) or rel in RESERVED_TYPES:
                raise ValueError(f"invalid or reserved relationship type {rel!r}")
        for p in self.patterns:
            if p.source not in self.node_labels or p.target not in self.node_labels:
                raise ValueError(f"pattern {tuple(p)} names a label that is not in node_labels")
            if p.type not in self.relationship_types:
                raise ValueError(f"pattern {tuple(p)} names a type that is not in relationship_types")
        return self

    @property
    def labels(self) -> list[str]:
        return list(self.node_labels)

    @property
    def types(self) -> list[str]:
        return list(self.relationship_types)

    def allows(self, source: str, rel_type: str, target: str) -> bool:
        return Pattern(source, rel_type, target) in self._pattern_set

    @property
    def _pattern_set(self) -> frozenset[Pattern]:
        return frozenset(self.patterns)

    @property
    def fingerprint(self) -> str:
        """Changes whenever anything an extractor sees changes; part of the extraction cache key."""
        blob = self.model_dump_json()
        return f"{self.name}-{self.version}-{hashlib.sha256(blob.encode()).hexdigest()[:12]}"

    def describe(self) -> str:
        """The schema as instructions for an extractor: labels, types and the allowed patterns."""
        lines = ["Node labels:"]
        lines += [f"- {label}: {text}" for label, text in self.node_labels.items()]
        lines.append("Relationship types:")
        lines += [f"- {rel}: {text}" for rel, text in self.relationship_types.items()]
        lines.append("Allowed (source label, relationship, target label) patterns; anything else is discarded:")
        lines += [f"- ({p.source})-[:{p.type}]->({p.target})" for p in self.patterns]
        return "\n".join(lines)


def default_schema_path() -> Path:
    return Path(__file__).with_name("news.yaml")


@cache
def load_schema(path: Path | None = None) -> GraphSchema:
    """Load and validate a schema file; a bad file fails with the reason."""
    source = path or default_schema_path()
    try:
        raw = yaml.safe_load(source.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read schema file {source}: {exc}") from exc
    return GraphSchema.model_validate(raw)
