"""The audit events of graph writes (core/auth/audit.py), built the same way for the API routes and the CLI: an
edit or undo names its edit id, kind, `by` and counts; a rejection its pair; an import its counts. Never an entity's
properties, a fact's evidence or a document's text."""

from __future__ import annotations

import getpass
from typing import Any

from graphwire.core.auth.audit import AuditTrail, Event, StoreAuditTrail
from graphwire.core.auth.models import Principal
from graphwire.core.auth.store import SqlitePrincipalStore
from graphwire.core.settings import Settings, get_settings
from graphwire.ingest.curation.models import EditResult, PairRequest
from graphwire.ingest.exchange.models import ImportReport


def edit_event(action: str, result: EditResult) -> Event:
    """`graph.edit` or `graph.undo` of an applied edit: its id is the target."""
    record = result.record
    assert record is not None  # an applied edit has its record
    change = result.change
    detail: dict[str, Any] = {
        "kind": record.kind, "by": record.by, "counts": change.counts,
        "entities": {"added": len(change.entities_added), "removed": len(change.entities_removed),
                     "changed": len(change.entities_changed)},
        "relationships": {"added": len(change.relationships_added), "removed": len(change.relationships_removed),
                          "changed": len(change.relationships_changed)},
    }  # fmt: skip
    if record.undoes:
        detail["undoes"] = record.undoes
    return action, record.id, detail


def pair_event(action: str, pair: PairRequest) -> Event:
    """`graph.reject` or `graph.unreject` of a candidate pair: its two entity keys, in order, are the target."""
    return action, " | ".join(sorted((pair.a, pair.b))), {"a": pair.a, "b": pair.b, "by": pair.by}


def import_event(report: ImportReport) -> Event:
    return "graph.import", "graph", {"lines": report.lines, "nodes": report.nodes,
                                     "relationships": report.relationships}  # fmt: skip


def local_operator() -> Principal:
    """The CLI's actor: whoever runs it on this machine (as `graphwire auth` names it), in the CLI's workspace."""
    return Principal(id=f"local:{getpass.getuser()}", name="local operator", server_admin=True, via="local",
                     workspace=get_settings().workspace)  # fmt: skip


def cli_audit(settings: Settings) -> AuditTrail:
    """The audit trail a CLI command records its writes in: the API's (AUTH_STORE_PATH)."""
    return StoreAuditTrail(SqlitePrincipalStore(settings.auth_store_path))
