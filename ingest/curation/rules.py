"""Curation rules: the decisions of applied edits, which every later ingest, update and delete honours.

An applied edit leaves rules (`:CurationRule` nodes, written in the edit's transaction and removed by its undo):

- `redirect`: a merge, rename, relabel or added alias; the keys names resolved to before the edit (`<Label>:<norm>`,
  the entity's `resolve_keys`) now mean the entity `target`;
- `deny-entity`: a deleted entity; names that resolve to its keys are not written again;
- `deny-fact`: a deleted relationship `source -type-> target`; ingest does not write it again;
- `keep-fact`: an added relationship, written back while its chunk and both entities exist (a document deleted and
  ingested again brings it back);
- `split`: mentions of `keys[0]` in the chosen `documents` or `chunks` belong to the entity `target`.

Ingest honours them where extracted names have become entity keys and relationships are collected (`ingest/rows.py`
asks `CurationRules.entity` and `.allows`), in the dictionary linker's links (`ingest/linking.py`), and after a run's
writes (`restore_facts`); both extractors write through these. Of a `keep-fact` and a `deny-fact` of one relationship
the later edit wins. `stale` lists the rules that no longer apply (`graphwire db check`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from graphwire.core.clients.graph import Graph
from graphwire.ingest.curation.models import (
    AddFact,
    Alias,
    DeleteEntity,
    DeleteFact,
    EditSpec,
    Merge,
    NodeState,
    Relabel,
    Rename,
    Snapshot,
    Split,
)
from graphwire.schema.model import GraphSchema

RuleKind = Literal["redirect", "deny-entity", "deny-fact", "keep-fact", "split"]
Fact = tuple[str, str, str]


class CurationRule(BaseModel):
    """One rule, as its `:CurationRule` node stores it (flat: Neo4j properties cannot nest)."""

    id: str
    edit_id: str
    seq: int  # the edit's sequence number: of two rules on one fact, the later wins
    kind: RuleKind
    keys: list[str] = Field(default_factory=list)  # redirect, deny-entity: the keys caught; split: the split entity
    target: str = ""  # redirect, split: where they go; facts: the relationship's target
    name: str = ""  # redirect, split: the target's name, to write it again when nothing is left of it
    source: str = ""  # facts: the relationship's source
    type: str = ""  # facts: the relationship's type
    chunk_id: str = ""  # keep-fact: its provenance
    evidence: str = ""  # keep-fact
    documents: list[str] = Field(default_factory=list)  # split
    chunks: list[str] = Field(default_factory=list)  # split

    def describe(self) -> str:
        if self.kind in ("deny-fact", "keep-fact"):
            return f"{self.kind} {self.source} -{self.type}-> {self.target} (edit {self.edit_id})"
        to = f" -> {self.target}" if self.target else ""
        return f"{self.kind} {', '.join(self.keys)}{to} (edit {self.edit_id})"


def rules_of(spec: EditSpec, before: Snapshot, after: Snapshot, edit_id: str, seq: int) -> list[CurationRule]:
    """The rules an applied edit leaves (none for removing an alias)."""
    base = {"edit_id": edit_id, "seq": seq}
    made: list[dict[str, object]] = []
    if isinstance(spec, Merge):
        merged = _node(before, spec.merged)
        made.append({"kind": "redirect", "keys": _resolve_keys(merged, spec.merged), "target": spec.survivor,
                     "name": _node(before, spec.survivor).props["name"]})  # fmt: skip
    elif isinstance(spec, Rename | Relabel | Alias) and not (isinstance(spec, Alias) and spec.remove):
        old, [new] = _node(before, spec.key), after.nodes  # these edits read and write one entity
        caught = sorted(set(_resolve_keys(old, old.key)) - set(_resolve_keys(new, new.key)) | {old.key} - {new.key})
        if isinstance(spec, Alias):
            caught = sorted(set(_resolve_keys(new, new.key)) - set(_resolve_keys(old, old.key)))
        if caught:
            made.append({"kind": "redirect", "keys": caught, "target": new.key, "name": new.props["name"]})
    elif isinstance(spec, DeleteEntity):
        made.append({"kind": "deny-entity", "keys": _resolve_keys(_node(before, spec.key), spec.key)})
    elif isinstance(spec, DeleteFact):
        made.append({"kind": "deny-fact", "source": spec.source, "type": spec.type, "target": spec.target})
    elif isinstance(spec, AddFact):
        made.append({"kind": "keep-fact", "source": spec.source, "type": spec.type, "target": spec.target,
                     "chunk_id": spec.chunk_id, "evidence": spec.evidence})  # fmt: skip
    elif isinstance(spec, Split):
        [new] = [n for n in after.nodes if before.node(n.key) is None]
        made.append({"kind": "split", "keys": [spec.key], "target": new.key, "name": new.props["name"],
                     "documents": sorted(set(spec.documents)), "chunks": sorted(set(spec.chunks))})  # fmt: skip
    return [CurationRule.model_validate({"id": f"{edit_id}-{i}", **base, **r}) for i, r in enumerate(made)]


def catching_no_other(rules: list[CurationRule], others: set[str]) -> list[CurationRule]:
    """The rules without the keys of `others` (entities the edit leaves alone): an alias two entities shared must not
    send the other one's names anywhere. A rule left catching nothing is dropped."""
    out = []
    for rule in rules:
        if rule.kind in ("redirect", "deny-entity"):
            rule = rule.model_copy(update={"keys": [k for k in rule.keys if k not in others]})
            if not rule.keys:
                continue
        out.append(rule)
    return out


def _node(snapshot: Snapshot, key: str) -> NodeState:
    node = snapshot.node(key)
    assert node is not None, key  # the edit refused a missing entity before
    return node


def _resolve_keys(node: NodeState, key: str) -> list[str]:
    """The entity keys a name resolves to this entity under: its own and its indexed aliases' (`resolve_keys` holds
    them as `<Label>|<norm>`)."""
    return sorted({key, *(str(k).replace("|", ":", 1) for k in node.props.get("resolve_keys") or [])})


@dataclass
class _Split:
    target: str
    documents: frozenset[str]
    chunks: frozenset[str]

    def covers(self, chunk_id: str, document_id: str | None) -> bool:
        return chunk_id in self.chunks or (document_id is not None and document_id in self.documents)


@dataclass
class CurationRules:
    """The rules of a store, read once per ingest run; `schema` judges a relationship a redirect moved (None: only
    to list them, as `db check` does)."""

    schema: GraphSchema | None
    rules: list[CurationRule] = field(default_factory=list)
    redirects: dict[str, str] = field(default_factory=dict)
    denied: set[str] = field(default_factory=set)
    splits: dict[str, list[_Split]] = field(default_factory=dict)
    denied_facts: set[Fact] = field(default_factory=set)
    kept_facts: dict[Fact, CurationRule] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # target key -> its name

    @classmethod
    def load(cls, graph: Graph, schema: GraphSchema | None = None) -> CurationRules:
        return cls.of([CurationRule.model_validate(r["rule"]) for r in graph.read("curation/rules")], schema)

    @classmethod
    def of(cls, rules: Iterable[CurationRule], schema: GraphSchema | None = None) -> CurationRules:
        out = cls(schema, sorted(rules, key=lambda r: r.seq))
        for rule in out.rules:
            if rule.name:
                out.names[rule.target] = rule.name
            if rule.kind == "redirect":
                out.redirects.update(dict.fromkeys([k for k in rule.keys if k != rule.target], rule.target))
            elif rule.kind == "deny-entity":
                out.denied.update(rule.keys)
            elif rule.kind == "split":
                split = _Split(rule.target, frozenset(rule.documents), frozenset(rule.chunks))
                out.splits.setdefault(rule.keys[0], []).append(split)
        for rule in out.rules:  # after every redirect: a fact names the entities as they are now
            fact = (out.final(rule.source), rule.type, out.final(rule.target))
            if rule.kind == "deny-fact":
                out.denied_facts.add(fact)
                out.kept_facts.pop(fact, None)
            elif rule.kind == "keep-fact":
                out.kept_facts[fact] = rule
                out.denied_facts.discard(fact)
        return out

    def __len__(self) -> int:
        return len(self.rules)

    def targets(self) -> list[str]:
        """The entity keys rules send names to (ingest reads them once, up front)."""
        return sorted({*self.redirects.values(), *(s.target for splits in self.splits.values() for s in splits)})

    def final(self, key: str) -> str:
        """The key after every redirect (a cycle stops where it closes)."""
        seen = {key}
        while (key := self.redirects.get(key, key)) not in seen:
            seen.add(key)
        return key

    def entity(self, key: str, chunk_id: str, document_id: str | None) -> str | None:
        """The entity a name resolved to `key` in this chunk belongs to: None when it was deleted."""
        seen: set[str] = set()
        while key not in seen:
            seen.add(key)
            if key in self.denied:
                return None
            split = next((s for s in self.splits.get(key, ()) if s.covers(chunk_id, document_id)), None)
            following = split.target if split is not None else self.redirects.get(key)
            if following is None:
                return key
            key = following
        return key

    def allows(self, source: tuple[str, str], type_: str, target: tuple[str, str], moved: bool) -> bool:
        """Whether ingest may write this relationship between (key, label) ends: not a deleted fact, and, when a rule
        moved an end to another label, still a schema pattern."""
        if (source[0], type_, target[0]) in self.denied_facts:
            return False
        return not moved or self.schema is None or self.schema.allows(source[1], type_, target[1])


def restore_facts(graph: Graph, rules: CurationRules) -> int:
    """Write back the added facts whose chunk and entities exist and that lack that chunk (after a run's writes)."""
    rows = [{"source": s, "type": t, "target": o, "chunk_id": r.chunk_id, "evidence": r.evidence}
            for (s, t, o), r in rules.kept_facts.items()]  # fmt: skip
    if not rows:
        return 0
    written = graph.write("curation/restore_facts", rows=rows)
    return int(written[0]["restored"]) if written else 0


def stale(graph: Graph, rules: CurationRules) -> list[tuple[CurationRule, str]]:
    """The rules that no longer apply, each with the reason: an entity they name no longer exists (a redirect or split
    whose target is gone still applies: ingest writes the target again under its name, or, deleted by a later edit,
    it deletes too), a deleted entity exists again, or an added fact's chunk is gone."""
    if not rules.rules:
        return []
    named = {k for r in rules.rules for k in [*r.keys, r.target, r.source] if k}
    exists = {str(r["key"]) for r in graph.read("curation/existing_keys", keys=sorted(named))}
    chunks = [r.chunk_id for r in rules.rules if r.kind == "keep-fact"]
    have_chunks = {str(r["id"]) for r in graph.read("curation/existing_chunks", ids=chunks)} if chunks else set()
    found: list[tuple[CurationRule, str]] = []
    for rule in rules.rules:
        to = rules.final(rule.target)
        if rule.kind == "redirect" and to not in exists and to not in rules.denied and to not in rules.names:
            found.append((rule, f"its entity {to!r} no longer exists"))
        elif rule.kind == "deny-entity" and (back := sorted(set(rule.keys) & exists)):
            found.append((rule, f"the deleted entity exists again: {', '.join(back)}"))
        elif gone := [k for k in _needs(rule, rules) if k not in exists]:
            found.append((rule, f"{', '.join(map(repr, gone))} no longer exists"))
        elif rule.kind == "keep-fact" and rule.chunk_id not in have_chunks:
            found.append((rule, f"its chunk {rule.chunk_id!r} no longer exists"))
    return found


def _needs(rule: CurationRule, rules: CurationRules) -> list[str]:
    """The entities a split or a fact rule names, as they are keyed now."""
    if rule.kind == "split":
        return [rule.keys[0], *([] if rule.name else [rule.target])]
    if rule.kind in ("deny-fact", "keep-fact"):
        return [rules.final(rule.source), rules.final(rule.target)]
    return []
