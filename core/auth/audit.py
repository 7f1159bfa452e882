"""The audit trail of document and graph writes: who added, replaced or deleted which document, whose document job
ended how, who edited, undid or imported the graph (docs/security.md).

One small interface, `AuditTrail`, built once per process (app/services.py `Services.build`) and called by the
routes, the MCP tools and the document jobs alike. `StoreAuditTrail` writes into the principal store's audit table
(AUTH_STORE_PATH), beside the changes of principals, grants and keys, so `GET /v1/auth/audit` and `graphwire auth
audit` read both with the same filters. Every AUTH_MODE records: `none` as `anonymous`, `key` as the shared key's
holder, `principals` as the caller's principal.

An event holds ids, titles, counts and states; never a key, a token or a document's text (callers pass only those).
A write the audit cannot record is not undone: the failure is logged (`graphwire.audit`) and the write stands.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from graphwire.core.auth.models import Principal
from graphwire.core.auth.store import PrincipalStore

log = logging.getLogger("graphwire.audit")

Event = tuple[str, str, dict[str, Any]]  # (action, target, detail)


class AuditTrail(Protocol):
    def record(self, actor: Principal, events: list[Event], workspace: str | None = None) -> None:
        """Write the events, all by `actor` in `workspace` (default: the one it acts in); never raises."""
        ...


class StoreAuditTrail:
    """`AuditTrail` into the principal store's audit table; one transaction per call."""

    def __init__(self, store: PrincipalStore) -> None:
        self.store = store

    def record(self, actor: Principal, events: list[Event], workspace: str | None = None) -> None:
        if not events:
            return
        try:
            self.store.record_events(actor.id, actor.name, workspace or actor.workspace, events)
        except Exception:  # the write happened; losing its audit row must not turn it into an error
            log.exception("audit events not recorded", extra={"actor": actor.id, "actions": [e[0] for e in events]})
