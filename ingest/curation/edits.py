"""What an edit makes of the part of the graph it touches: a pure function of the snapshot, the schema and the caps.

Every edit reads the entities it names (and the key a rename or relabel would give) with all their relationships,
and returns the same part as it should be after it. The service writes the result in one transaction; undo writes the
snapshot back. Refusals are `EditError`s with the reason, raised before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graphwire.core.names import label_norm
from graphwire.ingest.curation.models import (
    AddFact,
    Alias,
    DeleteEntity,
    DeleteFact,
    EditError,
    EditSpec,
    Merge,
    NodeState,
    Relabel,
    RelState,
    Rename,
    Snapshot,
    Split,
)
from graphwire.ingest.entity_lookup import lookup_properties
from graphwire.ingest.provenance import ProvenanceCaps, keep_capped
from graphwire.schema.model import GraphSchema

ENTITY = "Entity"


@dataclass(frozen=True)
class Rules:
    schema: GraphSchema
    caps: ProvenanceCaps


def keys_read(spec: EditSpec) -> list[str]:
    """The entity keys an edit's snapshot holds: those it names (the service checks that a key a rename or relabel
    gives is free)."""
    if isinstance(spec, Merge):
        return [spec.survivor, spec.merged]
    if isinstance(spec, DeleteFact | AddFact):
        return [spec.source, spec.target]
    return [spec.key]


def compute(spec: EditSpec, before: Snapshot, rules: Rules, selected: frozenset[str] = frozenset()) -> Snapshot:
    """The touched part after the edit (`EditError` when the graph or the schema refuses it). `selected`: for a
    split, the ids of the chosen chunks (those of its documents and its chunks)."""
    if isinstance(spec, Split):
        return _split(spec, before, rules, selected).sorted()
    handlers: dict[type, Callable[..., Snapshot]] = {
        Merge: _merge,
        Rename: _rename,
        Relabel: _relabel,
        Alias: _alias,
        DeleteEntity: _delete_entity,
        DeleteFact: _delete_fact,
        AddFact: _add_fact,
    }
    return handlers[type(spec)](spec, before, rules).sorted()


def _need(before: Snapshot, key: str) -> NodeState:
    node = before.node(key)
    if node is None:
        raise EditError(f"no entity with key {key!r}", status=404)
    return node


def _merge(spec: Merge, before: Snapshot, rules: Rules) -> Snapshot:
    if spec.survivor == spec.merged:
        raise EditError(f"cannot merge {spec.survivor!r} into itself")
    survivor, merged = _need(before, spec.survivor), _need(before, spec.merged)
    names = [*_aliases(survivor), str(merged.props["name"]), *_aliases(merged)]
    kept = _entity(survivor, str(survivor.props["label"]), str(survivor.props["name"]), names, rules)
    rels = _rekey(before.rels, {spec.merged: spec.survivor})
    rels = [r for r in rels if not (r.start_id == r.end_id == spec.survivor and r.start_kind == r.end_kind == ENTITY)]
    _check_patterns(rels, {spec.survivor: str(kept.props["label"])}, rules, f"merging into {spec.survivor!r}")
    others = [n for n in before.nodes if n.key not in (spec.survivor, spec.merged)]
    return Snapshot(nodes=[kept, *others], rels=_combined(rels, spec.survivor, rules.caps))


def _rename(spec: Rename, before: Snapshot, rules: Rules) -> Snapshot:
    node = _need(before, spec.key)
    label = str(node.props["label"])
    aliases = [spec.name, *_aliases(node)]
    renamed = _entity(node, label, spec.name, aliases, rules)
    return _replace_node(before, node, renamed)


def _relabel(spec: Relabel, before: Snapshot, rules: Rules) -> Snapshot:
    node = _need(before, spec.key)
    if spec.label not in rules.schema.labels:
        raise EditError(f"{spec.label!r} is not a label of the schema (one of {', '.join(rules.schema.labels)})")
    relabelled = _entity(node, spec.label, str(node.props["name"]), _aliases(node), rules)
    after = _replace_node(before, node, relabelled)
    _check_patterns(after.rels, {relabelled.key: spec.label}, rules, f"relabelling {spec.key!r} as {spec.label}")
    return after


def _alias(spec: Alias, before: Snapshot, rules: Rules) -> Snapshot:
    node = _need(before, spec.key)
    name, aliases = str(node.props["name"]), _aliases(node)
    if spec.remove:
        if spec.alias == name:
            raise EditError(f"{spec.alias!r} is the name of {spec.key!r}; rename it instead")
        if spec.alias not in aliases:
            raise EditError(f"{spec.key!r} has no alias {spec.alias!r}", status=404)
        aliases = [a for a in aliases if a != spec.alias]
    elif spec.alias in aliases:
        raise EditError(f"{spec.key!r} has the alias {spec.alias!r} already", status=409)
    else:
        aliases = [*aliases, spec.alias]
    changed = _entity(node, str(node.props["label"]), name, aliases, rules)
    return _replace_node(before, node, changed)


def _delete_entity(spec: DeleteEntity, before: Snapshot, rules: Rules) -> Snapshot:
    _need(before, spec.key)
    return Snapshot(nodes=[n for n in before.nodes if n.key != spec.key], rels=_not_at(before.rels, spec.key))


def _delete_fact(spec: DeleteFact, before: Snapshot, rules: Rules) -> Snapshot:
    _need(before, spec.source), _need(before, spec.target)
    ends = (f"{ENTITY}:{spec.source}", spec.type, f"{ENTITY}:{spec.target}")
    kept = [r for r in before.rels if r.ends() != ends]
    if len(kept) == len(before.rels):
        raise EditError(f"no relationship {spec.source} -{spec.type}-> {spec.target}", status=404)
    return Snapshot(nodes=before.nodes, rels=kept)


def _add_fact(spec: AddFact, before: Snapshot, rules: Rules) -> Snapshot:
    source, target = _need(before, spec.source), _need(before, spec.target)
    if spec.source == spec.target:
        raise EditError("a fact needs two different entities")
    labels = (str(source.props["label"]), str(target.props["label"]))
    if not rules.schema.allows(labels[0], spec.type, labels[1]):
        raise EditError(f"the schema has no pattern [{labels[0]}, {spec.type}, {labels[1]}]")
    added = RelState(
        type=spec.type,
        start_kind=ENTITY,
        start_id=spec.source,
        end_kind=ENTITY,
        end_id=spec.target,
        props={"chunk_ids": [spec.chunk_id], "evidence": [spec.evidence], "extractor": "curated"},
    )
    if any(r.ends() == added.ends() and spec.chunk_id in r.props.get("chunk_ids", []) for r in before.rels):
        raise EditError(f"{added.describe()} already names chunk {spec.chunk_id!r}", status=409)
    return Snapshot(nodes=before.nodes, rels=_combined([*before.rels, added], spec.source, rules.caps))


def _split(spec: Split, before: Snapshot, rules: Rules, selected: frozenset[str]) -> Snapshot:
    """The mentions in the chosen chunks go to a new entity named `spec.name`, and the relationships all of whose
    provenance is in them; a relationship supported both inside and outside them is split along its provenance (the
    new entity's part keeps the chosen chunks' ids and evidence). Others stay."""
    node = _need(before, spec.key)
    if not spec.documents and not spec.chunks:
        raise EditError("a split needs the documents or chunks that belong to the new entity")
    new = _entity(node, str(node.props["label"]), spec.name, [spec.name], rules)
    if not new.props["norm"]:
        raise EditError(f"the name {spec.name!r} normalises to nothing")
    if new.key == node.key:
        raise EditError(f"the new entity needs a name of its own: {spec.name!r} gives the key {node.key!r}")
    mentions = {r.start_id for r in before.rels if r.type == "MENTIONS" and r.start_kind == "Chunk"}
    if not mentions & selected:
        raise EditError(f"none of the chosen chunks mentions {spec.key!r}")
    if mentions <= selected:
        raise EditError(f"every mention of {spec.key!r} is in the chosen chunks: rename it instead")
    rels: list[RelState] = []
    for rel in before.rels:
        rels.extend(_split_rel(rel, spec.key, new.key, selected, set(spec.documents)))
    return Snapshot(nodes=[*before.nodes, new], rels=rels)


def _split_rel(rel: RelState, old: str, new: str, selected: frozenset[str], documents: set[str]) -> list[RelState]:
    """One relationship at the split entity as it is after the split: kept, moved, or its provenance divided."""
    moved = _rekey([rel], {old: new})[0]
    if rel.start_kind == "Chunk":
        return [moved if rel.start_id in selected else rel]
    if rel.start_kind == "Document":
        return [moved if rel.start_id in documents else rel]
    ids = [str(c) for c in rel.props.get("chunk_ids") or []]
    inside = [c for c in ids if c in selected]
    if not inside:
        return [rel]
    if len(inside) == len(ids):
        return [moved]
    return [_provenance_part(rel, set(ids) - set(inside)), _provenance_part(moved, set(inside))]


def _provenance_part(rel: RelState, keep: set[str]) -> RelState:
    """The relationship with only the provenance entries of `keep` (evidence kept parallel)."""
    ids = [str(c) for c in rel.props.get("chunk_ids") or []]
    props = {**rel.props, "chunk_ids": [c for c in ids if c in keep]}
    if rel.props.get("evidence") is not None:
        evidence = [str(e) for e in rel.props["evidence"]]
        props["evidence"] = [e for c, e in zip(ids, evidence, strict=True) if c in keep]
    return rel.model_copy(update={"props": props})


def _label_of(key: str) -> str:
    return key.split(":", 1)[0]


def _aliases(node: NodeState) -> list[str]:
    return [str(a) for a in node.props.get("aliases") or []]


def _entity(node: NodeState, label: str, name: str, aliases: Iterable[str], rules: Rules) -> NodeState:
    """The node with this label, name and aliases (the name among them), its key and lookup properties recomputed."""
    roles = rules.schema.roles
    norm = label_norm(name, label, roles)
    names = list(dict.fromkeys([name, *aliases]))
    props = {**node.props, "key": f"{label}:{norm}", "name": name, "norm": norm, "label": label, "aliases": names}
    props.update(lookup_properties(label, name, norm, names, roles))
    labels = sorted({x for x in node.labels if x != node.props.get("label")} | {ENTITY, label})
    return NodeState(key=str(props["key"]), labels=labels, props=props)


def _replace_node(before: Snapshot, old: NodeState, new: NodeState) -> Snapshot:
    if new.key != old.key and before.node(new.key) is not None:
        raise EditError(f"{new.key!r} exists already: merge {old.key!r} into it instead", status=409)
    nodes = [new if n.key == old.key else n for n in before.nodes]
    return Snapshot(nodes=nodes, rels=_rekey(before.rels, {old.key: new.key}))


def _rekey(rels: Iterable[RelState], keys: dict[str, str]) -> list[RelState]:
    def end(kind: str, ident: str) -> str:
        return keys.get(ident, ident) if kind == ENTITY else ident

    return [
        r.model_copy(update={"start_id": end(r.start_kind, r.start_id), "end_id": end(r.end_kind, r.end_id)})
        for r in rels
    ]


def _not_at(rels: Iterable[RelState], key: str) -> list[RelState]:
    return [r for r in rels if (r.start_kind, r.start_id) != (ENTITY, key) and (r.end_kind, r.end_id) != (ENTITY, key)]


def _check_patterns(rels: Iterable[RelState], labels: dict[str, str], rules: Rules, what: str) -> None:
    """Refuse when a relationship at the edited entity would break the schema's patterns."""
    forbidden = []
    for r in rels:
        if not ({r.start_id, r.end_id} & set(labels)):
            continue
        if r.start_kind == ENTITY and r.end_kind == ENTITY:
            source = labels.get(r.start_id) or _label_of(r.start_id)
            target = labels.get(r.end_id) or _label_of(r.end_id)
            if not rules.schema.allows(source, r.type, target):
                forbidden.append(f"{r.describe()} ([{source}, {r.type}, {target}])")
        elif (r.start_kind, r.end_kind) == ("Document", ENTITY) and (
            labels.get(r.end_id) or _label_of(r.end_id)
        ) != rules.schema.roles.publisher_label:
            forbidden.append(f"{r.describe()} (a document's outlet is a {rules.schema.roles.publisher_label})")
    if forbidden:
        raise EditError(f"the schema forbids {what}: {'; '.join(sorted(forbidden)[:10])}")


def _combined(rels: list[RelState], key: str, caps: ProvenanceCaps) -> list[RelState]:
    """Relationships with the same ends and type made one: the first one's properties win, provenance lists are
    joined (capped types cut as ingest cuts them), mention counts added, sentences and names joined."""
    by_ends: dict[tuple[str, str, str], RelState] = {}
    for rel in rels:
        first = by_ends.get(rel.ends())
        by_ends[rel.ends()] = rel if first is None else _join(first, rel, caps)
    return list(by_ends.values())


def _join(first: RelState, other: RelState, caps: ProvenanceCaps) -> RelState:
    a, b = first.props, other.props
    props = {**b, **a}
    if "chunk_ids" in a or "chunk_ids" in b:
        pairs: dict[str, str] = {}
        for side in (a, b):
            ids = [str(c) for c in side.get("chunk_ids") or []]
            evidence = [str(e) for e in side.get("evidence") or [""] * len(ids)]
            for cid, ev in zip(ids, evidence, strict=True):
                pairs[cid] = pairs.get(cid) or ev
        ids, evidence = list(pairs), list(pairs.values())
        cap = caps.cap_for(first.type)
        if cap is not None:
            ids, evidence = keep_capped(ids, evidence, cap)
        props["chunk_ids"] = ids
        if "evidence" in a or "evidence" in b:
            props["evidence"] = evidence
    if "count" in a and "count" in b:
        props["count"] = int(a["count"]) + int(b["count"])
    if "sentences" in a or "sentences" in b:
        props["sentences"] = sorted({int(s) for s in [*(a.get("sentences") or []), *(b.get("sentences") or [])]})
    if "names" in a and "names" in b:
        props["names"] = sorted({str(n) for n in [*(a["names"] or []), *(b["names"] or [])]})
    else:
        props.pop("names", None)  # one side's names were never recorded: the joined edge's are unknown
    if a.get("title") or b.get("title"):
        props["title"] = True
    if not (a.get("linked") and b.get("linked")):
        props.pop("linked", None)  # found by the tagger in one of them
    return first.model_copy(update={"props": props})
