"""The writer lease in the graph: one writer per store across machines, beside the file lock of
core/stores/store_lock.py.

The file lock covers the processes of one machine. Writers on several machines against one Neo4j (an API on a server,
an analyst's `graphwire ingest` from a laptop, both with a Chroma server) meet in the graph instead: one
`(:WriterLease {id: 'writer'})` node names the holder (host, pid, what, since) and an expiry on the server's clock.
The holder renews it every third of `STORE_LEASE_TTL_S` from a background thread and deletes it when done. A holder
killed on another machine blocks writers until its lease expires; one killed on this machine is taken over at once
(the caller holds this machine's file lock, and the holder's pid is gone).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.stores.processes import pid_alive
from graphwire.core.stores.store_holder import LockHolder

log = logging.getLogger(__name__)


class WriterLease:
    """`take(purpose)` returns None when granted, else the holder; `release()` gives it back and stops renewing."""

    def __init__(self, graph: Callable[[], Graph], ttl_s: float) -> None:
        self._graph = graph
        self.ttl_s = ttl_s
        self.host = socket.gethostname()
        self._owner: str | None = None
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def take(self, purpose: str) -> LockHolder | None:
        owner = uuid.uuid4().hex
        row = self._take(owner, purpose, take_over="")
        if not row["granted"] and row["host"] == self.host and not pid_alive(int(row["pid"] or 0)):
            row = self._take(owner, purpose, take_over=str(row["owner"]))  # a crashed process of this machine
        if not row["granted"]:
            return _holder(row)
        self._owner = owner
        self._stop.clear()
        self._renewer = threading.Thread(
            target=self._renew_until_stopped, args=(owner, purpose), name="graphwire-lease", daemon=True
        )
        self._renewer.start()
        return None

    def stop_renewing(self) -> None:
        """Stop the background renewal: the lease then ends `ttl_s` after its last renewal."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
            self._renewer = None

    def release(self) -> None:
        self.stop_renewing()
        owner, self._owner = self._owner, None
        if owner is None:
            return
        try:
            self._graph().write_once("store/release_writer_lease", owner=owner)
        except Exception as exc:  # Neo4j gone (the error the writer itself met): the lease expires on its own
            log.debug("could not release the writer lease (it ends within %.0f s): %s", self.ttl_s, exc)

    def _take(self, owner: str, purpose: str, take_over: str, once: bool = False) -> dict[str, Any]:
        """`once`: a single attempt (a renewal: the next round tries again)."""
        graph = self._graph()
        write = graph.write_once if once else graph.write
        rows = write("store/take_writer_lease", owner=owner, take_over=take_over, host=self.host, pid=os.getpid(),
                     purpose=purpose, ttl_ms=int(self.ttl_s * 1000))  # fmt: skip
        return rows[0]

    def _renew_until_stopped(self, owner: str, purpose: str) -> None:
        while not self._stop.wait(self.ttl_s / 3):
            try:
                if not self._take(owner, purpose, take_over="", once=True)["granted"]:
                    log.error("the writer lease was taken by another writer while this one held it (it expired)")
                    return
            except Exception as exc:  # Neo4j away for a moment: the next round tries again
                log.debug("could not renew the writer lease: %s", exc)


def _holder(row: dict[str, Any]) -> LockHolder:
    return LockHolder(host=str(row["host"] or "?"), pid=int(row["pid"] or 0), purpose=str(row["purpose"] or "?"),
                      since=str(row["since"] or "?"), expires_in_s=int(row["expires_in_s"] or 0))  # fmt: skip
