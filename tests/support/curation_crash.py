"""A graph edit killed mid-way: `python -m support.curation_crash WHEN SURVIVOR MERGED` (cwd tests/, the store from
NEO4J_URI / NEO4J_PASSWORD, the lock folder from STORE_LOCK_DIR) merges MERGED into SURVIVOR and SIGKILLs itself
`before` the edit's one write transaction is sent (the lock and lease taken, the snapshot read) or right `after` it
committed (before the lock is released and the store stamped). Exit 3: never killed."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.curation.models import EditRequest, Merge
from graphwire.ingest.curation.service import Curation
from graphwire.schema.model import load_schema

STATEMENT = "curation/apply"


def _kill_around_apply(when: str) -> None:
    real_write = Graph.write

    def write(self: Graph, name: str, **params: Any) -> list[dict[str, Any]]:
        if name == STATEMENT and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        rows = real_write(self, name, **params)
        if name == STATEMENT:
            os.kill(os.getpid(), signal.SIGKILL)
        return rows

    Graph.write = write  # type: ignore[method-assign]


if __name__ == "__main__":
    when, survivor, merged = sys.argv[1:4]
    _kill_around_apply(when)
    settings = Settings()
    graph = Graph.from_settings(settings)
    Curation(settings, lambda: graph, load_schema()).apply(EditRequest(edit=Merge(survivor=survivor, merged=merged)))
    sys.exit(3)
