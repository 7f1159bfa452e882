"""The boundary types of curation: edit requests, the part of the graph an edit touches, previews and audit records."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

Key = Annotated[str, Field(min_length=1, max_length=500, description="An entity key, `<Label>:<normalised name>`.")]
Name = Annotated[str, Field(min_length=1, max_length=300)]


class EditError(ValueError):
    """An edit the graph or the schema refuses, with the reason (HTTP 4xx, CLI exit 1); nothing was changed.

    `status` is the HTTP status it maps to: 404 for an entity or fact that does not exist, 409 for a conflict with
    the graph's state, 422 for a request the schema forbids."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


class Merge(BaseModel):
    kind: Literal["merge"] = "merge"
    survivor: Key
    merged: Key  # removed; its names become the survivor's aliases


class Rename(BaseModel):
    kind: Literal["rename"] = "rename"
    key: Key
    name: Name  # the new display name; the old one stays as an alias


class Relabel(BaseModel):
    kind: Literal["relabel"] = "relabel"
    key: Key
    label: Name


class Alias(BaseModel):
    kind: Literal["alias"] = "alias"
    key: Key
    alias: Name
    remove: bool = False


class DeleteEntity(BaseModel):
    kind: Literal["delete-entity"] = "delete-entity"
    key: Key


class DeleteFact(BaseModel):
    kind: Literal["delete-fact"] = "delete-fact"
    source: Key
    type: Name
    target: Key


class AddFact(BaseModel):
    kind: Literal["add-fact"] = "add-fact"
    source: Key
    type: Name
    target: Key
    chunk_id: Name  # the chunk the person read it in: the fact's provenance, and it goes when that chunk goes
    evidence: Annotated[str, Field(min_length=1, max_length=2000)]


class Split(BaseModel):
    """Part of an entity's mentions belong to a namesake: those in `documents` or `chunks` go to a new entity."""

    kind: Literal["split"] = "split"
    key: Key
    name: Name  # the new entity's name: a namesake needs a key of its own ("Jordan Lee (chemist)")
    documents: list[Name] = Field(default_factory=list, max_length=10_000)  # document ids
    chunks: list[Name] = Field(default_factory=list, max_length=10_000)  # chunk ids


EditSpec = Annotated[
    Merge | Rename | Relabel | Alias | DeleteEntity | DeleteFact | AddFact | Split, Field(discriminator="kind")
]


class EditRequest(BaseModel):
    """One edit, who asks for it and why."""

    edit: EditSpec
    by: Name = "unknown"
    reason: Annotated[str, Field(max_length=2000)] = ""


class NodeState(BaseModel):
    """One entity as stored: its key, labels and every property."""

    key: str
    labels: list[str]
    props: dict[str, Any]


class RelState(BaseModel):
    """One relationship at an edited entity; an end is an entity key, or a chunk's or document's id."""

    type: str
    start_kind: str  # Entity, Chunk or Document
    start_id: str
    end_kind: str
    end_id: str
    props: dict[str, Any] = Field(default_factory=dict)

    def ends(self) -> tuple[str, str, str]:
        return (f"{self.start_kind}:{self.start_id}", self.type, f"{self.end_kind}:{self.end_id}")

    def describe(self) -> str:
        return f"{self.start_id} -{self.type}-> {self.end_id}"


class Snapshot(BaseModel):
    """The entities an edit touches and every relationship at them, sorted: equal snapshots mean equal graph parts."""

    nodes: list[NodeState] = Field(default_factory=list)
    rels: list[RelState] = Field(default_factory=list)

    def sorted(self) -> Snapshot:
        nodes = sorted(self.nodes, key=lambda n: n.key)
        rels = sorted(self.rels, key=lambda r: (*r.ends(), repr(sorted(r.props.items()))))
        return Snapshot(nodes=nodes, rels=rels)

    def node(self, key: str) -> NodeState | None:
        return next((n for n in self.nodes if n.key == key), None)


class Change(BaseModel):
    """What an edit changes: counts and lists, the same for a dry run and the applied edit."""

    entities_removed: list[str] = Field(default_factory=list)
    entities_added: list[str] = Field(default_factory=list)
    entities_changed: list[str] = Field(default_factory=list)  # same key, other properties or labels
    relationships_removed: list[str] = Field(default_factory=list)  # "source -TYPE-> target"
    relationships_added: list[str] = Field(default_factory=list)
    relationships_changed: list[str] = Field(default_factory=list)  # same ends, other properties (provenance joined)
    counts: dict[str, int] = Field(default_factory=dict)


class EditRecord(BaseModel):
    """The audit record of an applied edit (an `:Edit` node): who, when, what, why and the exact change."""

    id: str
    kind: str
    by: str
    reason: str
    at: str  # ISO 8601, UTC
    request: dict[str, Any]
    keys: list[str]  # the entities before and after it
    change: Change
    undoes: str | None = None
    undone_by: str | None = None


class EditResult(BaseModel):
    """A dry run (`applied` false, no record) or an applied edit (with its audit record)."""

    applied: bool
    change: Change
    record: EditRecord | None = None


class PairRequest(BaseModel):
    """A candidate pair a person rejects (never proposed again) or takes the rejection of back."""

    a: Key
    b: Key
    by: Name = "unknown"
    reason: Annotated[str, Field(max_length=2000)] = ""


class CandidateEntity(BaseModel):
    key: str
    label: str
    name: str
    sentences: list[str] = Field(default_factory=list)  # a few sentences that mention it, from its chunks


class Candidate(BaseModel):
    """A pair of entities that may be one: accept it with a `merge` edit, or reject it."""

    a: CandidateEntity
    b: CandidateEntity
    score: float  # 0.7 × name strength + 0.3 × min(shared neighbours, 3)/3 (docs/curation.md)
    name_strength: float
    reasons: list[str]  # the name signals: same-name, acronym, surname, initial, similar name
    shared_neighbours: int
    neighbours: list[str] = Field(default_factory=list)  # the names of a few of them


class Rejection(BaseModel):
    """A rejected pair (a `:RejectedPair` node): who said the two are not one, when and why."""

    a: str
    b: str
    by: str
    reason: str
    at: str
