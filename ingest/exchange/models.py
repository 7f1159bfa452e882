"""The JSON Lines graph format: a header line, then one line per node and per relationship.

    {"kind":"header","format":"graphwire-graph","version":1,"schema":{"name":"news","version":"2"},...}
    {"kind":"node","label":"<Label>","key":"<Label>:<normalised name>","properties":{...}}
    {"kind":"relationship","type":"<TYPE>","start":{"label":"<Label>","key":"..."},"end":{...},"properties":{...}}

A node's `label` is its schema label for an entity, else `Document`, `Chunk` or `Date`; its `key` is the property
that identifies it (an entity's `key`, a document's or chunk's `id`, a day's `date`). Properties are Neo4j property
values: strings, numbers, booleans and lists of one of them.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT: Literal["graphwire-graph"] = "graphwire-graph"
FORMAT_VERSION = 1
LAYER_KINDS = ("Date", "Document", "Chunk")  # the nodes graphwire writes beside the entities, in export order
KINDS = (*LAYER_KINDS, "Entity")
IDENTITY = {"Entity": "key", "Document": "id", "Chunk": "id", "Date": "date"}  # the property a node is found by

Scalar = str | int | float | bool
PropertyValue = Scalar | list[str] | list[int] | list[float] | list[bool]
Key = Annotated[str, Field(min_length=1)]


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SchemaRef(_Line):
    name: str
    version: str


class Scope(_Line):
    entity: str | None = None  # a neighbourhood export: the entity it is around
    hops: int | None = None


class Counts(_Line):
    nodes: dict[str, int] = Field(default_factory=dict)  # label -> how many node lines
    relationships: dict[str, int] = Field(default_factory=dict)  # type -> how many relationship lines


class Header(_Line):
    kind: Literal["header"] = "header"
    format: Literal["graphwire-graph"] = FORMAT
    version: int = FORMAT_VERSION
    schema_: SchemaRef = Field(alias="schema")
    scope: Scope = Field(default_factory=Scope)
    counts: Counts | None = None  # every export writes them; an import checks them when present

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NodeLine(_Line):
    kind: Literal["node"] = "node"
    label: Key
    key: Key
    properties: dict[str, PropertyValue] = Field(default_factory=dict)


class Endpoint(_Line):
    label: Key
    key: Key


class RelationshipLine(_Line):
    kind: Literal["relationship"] = "relationship"
    type: Key
    start: Endpoint
    end: Endpoint
    properties: dict[str, PropertyValue] = Field(default_factory=dict)


class LineError(BaseModel):
    line: int  # 1-based line number in the file
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ImportReport(BaseModel):
    """What an import did: the lines read, and the nodes and relationships written (created or merged)."""

    lines: int
    nodes: dict[str, int] = Field(default_factory=dict)  # label -> nodes written
    relationships: dict[str, int] = Field(default_factory=dict)  # type -> relationships written
    batches: int = 0


class ExchangeError(ValueError):
    """An export or import refused with the reason; for an import, nothing was written.

    `errors` lists an import file's problems by line (at most `MAX_ERRORS` of them); `status` is the HTTP status."""

    def __init__(self, message: str, errors: list[LineError] | None = None, status: int = 422) -> None:
        super().__init__(message)
        self.errors = errors or []
        self.status = status


def kind_of(label: str) -> str:
    """The node kind of a line's label: an entity for any schema label."""
    return label if label in LAYER_KINDS else "Entity"


def dumps(line: BaseModel) -> str:
    """One line as compact JSON with sorted keys, so that the same graph gives the same bytes."""
    data: dict[str, Any] = line.model_dump(by_alias=True, exclude_none=False)
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
