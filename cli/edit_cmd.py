"""`graphwire edit`: fix the graph by hand, each edit previewed (`--dry-run`), audited and undoable.

A thin surface over `ingest/curation/service.py` (`Curation`), the same door the HTTP routes and the Python API use.
"""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console

from graphwire.app.audit_events import cli_audit, edit_event, local_operator, pair_event
from graphwire.cli.common import fail, writing_graph
from graphwire.core.auth.audit import Event
from graphwire.core.schema import configured_schema
from graphwire.core.settings import get_settings
from graphwire.ingest.curation.models import (
    AddFact,
    Alias,
    DeleteEntity,
    DeleteFact,
    EditError,
    EditRecord,
    EditRequest,
    EditResult,
    EditSpec,
    Merge,
    PairRequest,
    Relabel,
    Rename,
    Split,
)
from graphwire.ingest.curation.service import Curation

app = typer.Typer(
    help="Fix the graph: merge, split, rename, relabel, aliases, delete or add facts; undo; the edit log."
)
console = Console()

DryRun = Annotated[bool, typer.Option("--dry-run", help="show what would change; change nothing")]
By = Annotated[str | None, typer.Option(help="who makes the edit (default: the login name)")]
Reason = Annotated[str, typer.Option(help="why, kept in the audit record")]
Wait = Annotated[float, typer.Option(help="seconds to wait while another process writes")]


@contextmanager
def _curation() -> Iterator[Curation]:
    settings = get_settings()
    with writing_graph(settings) as graph:
        try:
            yield Curation(settings, lambda: graph, configured_schema(settings))
        except EditError as exc:
            raise fail(str(exc)) from None


def _audited(event: Event) -> None:
    """An applied change in the server's audit log too (docs/security.md), by the local operator."""
    cli_audit(get_settings()).record(local_operator(), [event])


def _run(spec: EditSpec, dry_run: bool, by: str | None, reason: str, wait: float) -> None:
    request = EditRequest(edit=spec, by=by or getpass.getuser(), reason=reason)
    with _curation() as curation:
        result = curation.preview(request) if dry_run else curation.apply(request, wait_s=wait)
    if result.applied:
        _audited(edit_event("graph.edit", result))
    _print(result)


def _print(result: EditResult) -> None:
    change = result.change
    if result.record is not None:
        console.print(f"applied edit [bold]{result.record.id}[/] ({result.record.kind}); undo: graphwire edit undo "
                      f"{result.record.id}")  # fmt: skip
    else:
        console.print("dry run: nothing changed")
    for field, count in change.counts.items():
        if count:
            console.print(f"{field.replace('_', ' ')}: {count}")
            for item in getattr(change, field):
                console.print(f"  {item}", markup=False, highlight=False)


@app.command()
def merge(
    survivor: Annotated[str, typer.Argument(help="the entity key that stays")],
    merged: Annotated[str, typer.Argument(help="the entity key merged into it (its names become aliases)")],
    dry_run: DryRun = False,
    by: By = None,
    reason: Reason = "",
    wait: Wait = 0.0,
) -> None:
    """Merge one entity into another: mentions, relationships and provenance move, duplicates are joined."""
    _run(Merge(survivor=survivor, merged=merged), dry_run, by, reason, wait)


@app.command()
def rename(key: str, name: str, dry_run: DryRun = False, by: By = None, reason: Reason = "", wait: Wait = 0.0) -> None:
    """Give an entity a new name (its key follows; the old name stays an alias)."""
    _run(Rename(key=key, name=name), dry_run, by, reason, wait)


@app.command()
def relabel(
    key: str, label: str, dry_run: DryRun = False, by: By = None, reason: Reason = "", wait: Wait = 0.0
) -> None:
    """Give an entity another schema label (refused when one of its relationships would break a schema pattern)."""
    _run(Relabel(key=key, label=label), dry_run, by, reason, wait)


@app.command()
def alias(
    key: str,
    alias: str,
    remove: Annotated[bool, typer.Option("--remove", help="remove the alias instead of adding it")] = False,
    dry_run: DryRun = False,
    by: By = None,
    reason: Reason = "",
    wait: Wait = 0.0,
) -> None:
    """Add (or `--remove`) an alias of an entity."""
    _run(Alias(key=key, alias=alias, remove=remove), dry_run, by, reason, wait)


@app.command("delete-entity")
def delete_entity(key: str, dry_run: DryRun = False, by: By = None, reason: Reason = "", wait: Wait = 0.0) -> None:
    """Delete an entity with its mentions and relationships."""
    _run(DeleteEntity(key=key), dry_run, by, reason, wait)


@app.command("delete-fact")
def delete_fact(
    source: str,
    type: str,
    target: str,
    dry_run: DryRun = False,
    by: By = None,
    reason: Reason = "",
    wait: Wait = 0.0,
) -> None:
    """Delete the relationship SOURCE -TYPE-> TARGET."""
    _run(DeleteFact(source=source, type=type, target=target), dry_run, by, reason, wait)


@app.command("add-fact")
def add_fact(
    source: str,
    type: str,
    target: str,
    chunk: Annotated[str, typer.Option(help="id of the chunk that states it (its provenance)")],
    evidence: Annotated[str, typer.Option(help="the sentence that states it")],
    dry_run: DryRun = False,
    by: By = None,
    reason: Reason = "",
    wait: Wait = 0.0,
) -> None:
    """Add the relationship SOURCE -TYPE-> TARGET (a schema pattern) with its evidence."""
    spec = AddFact(source=source, type=type, target=target, chunk_id=chunk, evidence=evidence)
    _run(spec, dry_run, by, reason, wait)


@app.command()
def split(
    key: str,
    name: Annotated[str, typer.Argument(help="the new entity's name (a key of its own)")],
    document: Annotated[list[str] | None, typer.Option(help="a document whose mentions go to the new entity")] = None,
    chunk: Annotated[list[str] | None, typer.Option(help="a chunk whose mentions go to the new entity")] = None,
    dry_run: DryRun = False,
    by: By = None,
    reason: Reason = "",
    wait: Wait = 0.0,
) -> None:
    """Split a namesake off KEY: the mentions in the chosen documents or chunks (repeat --document/--chunk) go to a
    new entity NAME, with the relationships they support."""
    _run(Split(key=key, name=name, documents=document or [], chunks=chunk or []), dry_run, by, reason, wait)


@app.command()
def undo(edit_id: str, dry_run: DryRun = False, by: By = None, reason: Reason = "", wait: Wait = 0.0) -> None:
    """Undo an edit (refused when a later edit or ingest touched the same entities)."""
    with _curation() as curation:
        result = curation.undo(edit_id, by or getpass.getuser(), reason, dry_run=dry_run, wait_s=wait)
    if result.applied:
        _audited(edit_event("graph.undo", result))
    _print(result)


@app.command()
def log(
    entity: Annotated[str | None, typer.Option(help="only edits that touched this entity key")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 50,
) -> None:
    """The applied edits, newest first."""
    with _curation() as curation:
        records = curation.log(entity, limit)
    for record in records:
        _print_record(record)


def _print_record(record: EditRecord) -> None:
    state = f" (undone by {record.undone_by})" if record.undone_by else ""
    undoes = f" of {record.undoes}" if record.undoes else ""
    why = f": {record.reason}" if record.reason else ""
    console.print(f"{record.id} {record.at} {record.kind}{undoes} by {record.by}{why}{state}", markup=False)
    console.print(f"  entities: {', '.join(record.keys)}", markup=False, highlight=False)


@app.command()
def candidates(
    entity: Annotated[str | None, typer.Option(help="only pairs with this entity key")] = None,
    limit: Annotated[int, typer.Option(min=1, max=500)] = 20,
) -> None:
    """The review queue: pairs that may be one entity, best first, with their evidence. Accept one with
    `graphwire edit merge SURVIVOR MERGED`, or `graphwire edit reject A B`."""
    with _curation() as curation:
        found = curation.candidates(limit, entity)
    if not found:
        console.print("no candidate merges")
    for c in found:
        console.print(f"{c.score:.3f}  {c.a.key}  <>  {c.b.key}  ({'; '.join(c.reasons)})", markup=False)
        if c.shared_neighbours:
            console.print(f"  shared neighbours {c.shared_neighbours}: {', '.join(c.neighbours)}", markup=False)
        for end in (c.a, c.b):
            for sentence in end.sentences:
                console.print(f"  {end.name}: {sentence}", markup=False, highlight=False)


@app.command()
def reject(
    a: str,
    b: str,
    undo: Annotated[bool, typer.Option("--undo", help="take the rejection back")] = False,
    by: By = None,
    reason: Reason = "",
    wait: Wait = 0.0,
) -> None:
    """Reject the candidate pair A B: the review queue never proposes it again (`--undo` takes that back)."""
    request = PairRequest(a=a, b=b, by=by or getpass.getuser(), reason=reason)
    with _curation() as curation:
        if undo:
            curation.unreject(request, wait_s=wait)
        else:
            curation.reject(request, wait_s=wait)
    _audited(pair_event("graph.unreject" if undo else "graph.reject", request))
    console.print(f"{'rejection taken back' if undo else 'rejected'}: {a} <> {b}", markup=False)
