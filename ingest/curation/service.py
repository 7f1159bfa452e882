"""The one door of curation: every surface (HTTP, CLI, Python API) previews, applies, undoes and lists edits here.

An applied edit holds the writer lock (`WriteSession`: another writer is a `StoreBusyError` naming it), reads the part
of the graph it touches, computes the result (`edits.py`) and writes it with its `:Edit` audit record in one
transaction: a kill leaves the old state or the new one. The record keeps both states, so undo writes the old one
back, after checking that nothing has touched those entities since (a later edit, or an ingest, delete or repair).
The edit's curation rules (`rules.py`: what later ingests must keep) are written in the same transaction, and an
undo removes them in its own.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.write_session import WriteSession
from graphwire.ingest.curation import review
from graphwire.ingest.curation.edits import Rules, compute, keys_read
from graphwire.ingest.curation.models import (
    AddFact,
    Candidate,
    Change,
    EditError,
    EditRecord,
    EditRequest,
    EditResult,
    PairRequest,
    Rejection,
    Snapshot,
    Split,
)
from graphwire.ingest.curation.rules import CurationRule, catching_no_other, rules_of
from graphwire.ingest.curation.snapshot import apply_snapshot, dumps, loads, read_snapshot
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.schema.model import GraphSchema


class Curation:
    """Edits of one store under one schema. `on_change` tells this process's caches after a write."""

    def __init__(
        self,
        settings: Settings,
        graph: Callable[[], Graph],
        schema: GraphSchema,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.rules = Rules(schema, ProvenanceCaps.of(schema, settings))
        self.roles = schema.roles
        self.on_change = on_change

    # edits ------------------------------------------------------------------------------------------------
    def preview(self, request: EditRequest) -> EditResult:
        """What the edit would change (the dry run); nothing is written and no lock taken."""
        before, after, _ = self._plan(request)
        return EditResult(applied=False, change=diff(before, after))

    def apply(self, request: EditRequest, wait_s: float = 0.0) -> EditResult:
        """Apply the edit and record it; `wait_s` is how long to wait for another writer."""
        with self._session(f"graphwire edit {request.edit.kind} by {request.by}", wait_s):
            before, after, selected = self._plan(request)
            change = diff(before, after)
            keys = _keys(before, after)
            record = self._record(request.edit.kind, request.by, request.reason, request.model_dump(), change, keys)
            stored = _stored(record, before, after)
            rules = self._rules(rules_of(request.edit, before, after, record.id, stored["seq"]), before)
            apply_snapshot(self.graph(), [n.key for n in before.nodes], after, stored, rules=rules)
        return EditResult(applied=True, change=change, record=record)

    def undo(self, edit_id: str, by: str, reason: str = "", dry_run: bool = False, wait_s: float = 0.0) -> EditResult:
        """Write back the state before the edit `edit_id`, refused with the reason when a later edit or write touched
        the same entities or it was undone already."""
        if dry_run:
            _, before, after = self._undoable(edit_id)
            return EditResult(applied=False, change=diff(after, before))
        with self._session(f"graphwire edit undo {edit_id} by {by}", wait_s):
            stored, before, after = self._undoable(edit_id)
            change = diff(after, before)
            keys = _keys(after, before)
            record = self._record("undo", by, reason, {"undo": edit_id}, change, keys, undoes=edit_id)
            payload = _stored(record, after, before)
            apply_snapshot(self.graph(), [n.key for n in after.nodes], before, payload, undoes=edit_id)
        return EditResult(applied=True, change=change, record=record)

    # audit ------------------------------------------------------------------------------------------------
    def log(self, key: str | None = None, limit: int = 50) -> list[EditRecord]:
        """Applied edits, newest first: all of them, or those that touched the entity `key`."""
        rows = self.graph().read("curation/edits", key=key, limit=limit)
        return [_record_of(row["edit"]) for row in rows]

    def get(self, edit_id: str) -> EditRecord:
        return _record_of(self._stored(edit_id))

    # review queue ----------------------------------------------------------------------------------------
    def candidates(self, limit: int = 20, entity: str | None = None) -> list[Candidate]:
        """Candidate merges, best first, without rejected pairs (review.py); accept one with a `merge` edit."""
        return review.candidates(self.graph(), self.roles.person_label, self.roles.publisher_label, limit, entity)

    def reject(self, request: PairRequest, wait_s: float = 0.0) -> Rejection:
        """Say two entities are not one: the queue never proposes the pair again (`unreject` takes it back)."""
        with self._session(f"graphwire edit reject by {request.by}", wait_s):
            return review.reject(self.graph(), request)

    def unreject(self, request: PairRequest, wait_s: float = 0.0) -> None:
        with self._session(f"graphwire edit unreject by {request.by}", wait_s):
            review.unreject(self.graph(), request)

    def rejections(self) -> list[Rejection]:
        return review.rejections(self.graph())

    # internals --------------------------------------------------------------------------------------------
    def _session(self, purpose: str, wait_s: float) -> WriteSession:
        return WriteSession(self.settings, self.graph, purpose, on_change=self.on_change).open(wait_s)

    def _plan(self, request: EditRequest) -> tuple[Snapshot, Snapshot, frozenset[str]]:
        """The touched part before and after the edit, and a split's chosen chunk ids."""
        spec = request.edit
        graph = self.graph()
        if isinstance(spec, AddFact) and not graph.read("curation/chunk_exists", chunk_id=spec.chunk_id)[0]["found"]:
            raise EditError(f"no chunk with id {spec.chunk_id!r}", status=404)
        selected = self._selection(spec) if isinstance(spec, Split) else frozenset()
        before = read_snapshot(graph, keys_read(spec))
        after = compute(spec, before, self.rules, selected)
        if dumps(after) == dumps(before):
            raise EditError(f"the {spec.kind} changes nothing")
        new_keys = {n.key for n in after.nodes} - {n.key for n in before.nodes}
        taken = read_snapshot(graph, new_keys).nodes if new_keys else []
        if taken:
            old = ", ".join(repr(n.key) for n in before.nodes)
            raise EditError(f"{taken[0].key!r} exists already: merge {old} into it instead", status=409)
        return before, after, selected

    def _selection(self, spec: Split) -> frozenset[str]:
        """The ids of a split's chosen chunks: its chunks and those of its documents (404 for one that is missing)."""
        rows = self.graph().read("curation/split_selection", documents=spec.documents, chunks=spec.chunks)
        missing = [f"{r['kind']} {r['id']!r}" for r in rows if not r["found"]]
        if missing:
            raise EditError(f"no {', no '.join(missing[:10])}", status=404)
        return frozenset(str(c) for r in rows for c in r["chunks"])

    def _rules(self, rules: list[CurationRule], before: Snapshot) -> list[dict[str, Any]]:
        """The edit's rules as their nodes store them, without keys of entities the edit leaves alone."""
        named = sorted({k for r in rules for k in r.keys})
        existing = {str(r["key"]) for r in self.graph().read("curation/existing_keys", keys=named)}
        others = existing - {n.key for n in before.nodes}
        return [r.model_dump() for r in catching_no_other(rules, others)]

    def _stored(self, edit_id: str) -> dict[str, Any]:
        rows = self.graph().read("curation/edit_by_id", id=edit_id)
        if not rows:
            raise EditError(f"no edit with id {edit_id!r}", status=404)
        return dict(rows[0]["edit"])

    def _undoable(self, edit_id: str) -> tuple[dict[str, Any], Snapshot, Snapshot]:
        stored = self._stored(edit_id)
        if stored.get("undone_by"):
            raise EditError(f"edit {edit_id} was undone already (by edit {stored['undone_by']})", status=409)
        keys = list(stored["keys"])
        later = self.graph().read("curation/later_edits", seq=stored["seq"], keys=keys)
        if later:
            named = ", ".join(f"{r['id']} ({r['kind']} by {r['by']})" for r in later)
            raise EditError(f"later edits touch the same entities; undo them first: {named}", status=409)
        before, after = loads(stored["before"]), loads(stored["after"])
        now = read_snapshot(self.graph(), keys)
        if dumps(now) != dumps(after):
            changed = sorted(_changed_keys(after, now))
            raise EditError(
                f"the entities changed since edit {edit_id} (a later ingest, delete or repair): {', '.join(changed)}",
                status=409,
            )
        return stored, before, after

    @staticmethod
    def _record(
        kind: str,
        by: str,
        reason: str,
        request: dict[str, Any],
        change: Change,
        keys: list[str],
        undoes: str | None = None,
    ) -> EditRecord:
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        return EditRecord(
            id=uuid.uuid4().hex[:16],
            kind=kind,
            by=by,
            reason=reason,
            at=at,
            request=request,
            keys=keys,
            change=change,
            undoes=undoes,
        )


def _keys(before: Snapshot, after: Snapshot) -> list[str]:
    """The entities an edit touches: those it read and those it wrote."""
    return sorted({n.key for n in [*before.nodes, *after.nodes]})


def _stored(record: EditRecord, before: Snapshot, after: Snapshot) -> dict[str, Any]:
    """The `:Edit` node's properties: the record, and both states as JSON (undo writes `before` back)."""
    return {
        "id": record.id,
        "kind": record.kind,
        "by": record.by,
        "reason": record.reason,
        "at": record.at,
        "seq": time.time_ns(),
        "request": json.dumps(record.request, sort_keys=True),
        "keys": record.keys,
        "change": record.change.model_dump_json(),
        "before": dumps(before),
        "after": dumps(after),
        "undoes": record.undoes,
    }


def _record_of(props: dict[str, Any]) -> EditRecord:
    return EditRecord(
        id=props["id"],
        kind=props["kind"],
        by=props["by"],
        reason=props.get("reason", ""),
        at=props["at"],
        request=json.loads(props["request"]),
        keys=list(props["keys"]),
        change=Change.model_validate_json(props["change"]),
        undoes=props.get("undoes"),
        undone_by=props.get("undone_by"),
    )


def diff(before: Snapshot, after: Snapshot) -> Change:
    """What turns `before` into `after`: entities and relationships removed, added and changed."""
    old, new = {n.key: n for n in before.nodes}, {n.key: n for n in after.nodes}
    old_rels, new_rels = {r.ends(): r for r in before.rels}, {r.ends(): r for r in after.rels}
    change = Change(
        entities_removed=sorted(old.keys() - new.keys()),
        entities_added=sorted(new.keys() - old.keys()),
        entities_changed=sorted(k for k in old.keys() & new.keys() if old[k] != new[k]),
        relationships_removed=sorted(old_rels[e].describe() for e in old_rels.keys() - new_rels.keys()),
        relationships_added=sorted(new_rels[e].describe() for e in new_rels.keys() - old_rels.keys()),
        relationships_changed=sorted(
            new_rels[e].describe() for e in old_rels.keys() & new_rels.keys() if old_rels[e] != new_rels[e]
        ),
    )
    fields = [f for f in Change.model_fields if f != "counts"]
    change.counts = {f: len(getattr(change, f)) for f in fields}
    return change


def _changed_keys(expected: Snapshot, now: Snapshot) -> Iterable[str]:
    change = diff(expected, now)
    yield from {*change.entities_removed, *change.entities_added, *change.entities_changed}
    yield from [*change.relationships_removed, *change.relationships_added, *change.relationships_changed]
