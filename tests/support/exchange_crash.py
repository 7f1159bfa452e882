"""An import killed part-way: `python -m support.exchange_crash FILE BATCHES` (cwd tests/, the store from NEO4J_URI /
NEO4J_PASSWORD, the lock folder from STORE_LOCK_DIR) imports FILE in batches of `BATCH` rows and SIGKILLs itself once
BATCHES batches are committed. Exit 3: the import ended before."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.schema.model import load_schema

BATCH = 50


def main(path: str, batches: int) -> int:
    settings = Settings()
    graph = Graph.from_settings(settings)

    def on_batch(done: int) -> None:
        if done >= batches:
            os.kill(os.getpid(), signal.SIGKILL)

    exchange = GraphExchange(settings, lambda: graph, load_schema())
    with Path(path).open(encoding="utf-8") as lines:
        exchange.import_lines(lines, wait_s=30.0, batch=BATCH, on_batch=on_batch)
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
