"""One writer per store across machines: the writer lease in the graph. Another machine is stood in for by a lease
whose host is another name, with its own lock folder (its own file lock): the file lock alone would let both write.

A writer on another machine is refused with its host named; its lease, once released or expired (its holder killed),
lets the next writer in; a writer killed on this machine is taken over at once.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.store_holder import StoreBusyError
from graphwire.core.stores.store_lease import WriterLease
from graphwire.core.stores.store_lock import WriterLock

pytestmark = pytest.mark.integration
TTL_S = 5.0  # renewed every 1.7 s: a stalled renewal would need over 3 s to let the lease lapse


@pytest.fixture
def other_machine(graph: Graph) -> Iterator[WriterLease]:
    lease = WriterLease(lambda: graph, TTL_S)
    lease.host = "ingest-box-2"
    yield lease
    lease.release()


def _lock(settings: Settings, graph: Graph, tmp_path: Path) -> WriterLock:
    update = {"store_lock_dir": tmp_path / "locks", "store_lease_ttl_s": TTL_S}
    return WriterLock.for_settings(settings.model_copy(update=update), lambda: graph)


def _lease_rows(graph: Graph) -> list[dict[str, object]]:
    return graph.read("check/writer_lease")


def test_a_writer_on_another_machine_is_refused_until_it_releases(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path, other_machine: WriterLease
) -> None:
    assert other_machine.take("graphwire ingest nightly.jsonl") is None
    lock = _lock(neo4j_settings, graph, tmp_path)
    with pytest.raises(StoreBusyError) as refused:
        lock.acquire("graphwire ingest corpus.json")
    message = str(refused.value)
    assert "'graphwire ingest nightly.jsonl'" in message and "on ingest-box-2" in message
    assert not lock.held  # the file lock went back with the refusal
    time.sleep(TTL_S * 1.5)  # renewed in the background: still held
    with pytest.raises(StoreBusyError):
        lock.acquire("graphwire ingest corpus.json")
    other_machine.release()
    assert _lease_rows(graph) == []
    with lock.hold("graphwire ingest corpus.json"):
        assert [(r["host"], r["pid"]) for r in _lease_rows(graph)] == [(socket.gethostname(), os.getpid())]
        assert other_machine.take("graphwire db check --repair") is not None
    assert _lease_rows(graph) == []


def test_a_lease_its_killed_holder_left_expires(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path, other_machine: WriterLease
) -> None:
    assert other_machine.take("graphwire ingest nightly.jsonl") is None
    other_machine.stop_renewing()  # as if its machine died: the lease stays, unrenewed
    lock = _lock(neo4j_settings, graph, tmp_path)
    started = time.monotonic()
    with lock.hold("graphwire ingest corpus.json", wait_s=TTL_S * 4):
        waited = time.monotonic() - started
        assert [r["purpose"] for r in _lease_rows(graph)] == ["graphwire ingest corpus.json"]
    assert 0.5 < waited < TTL_S * 3


HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from graphwire.core.clients.graph import Graph
    from graphwire.core.settings import Settings
    from graphwire.core.stores.store_lock import WriterLock

    settings = Settings(store_lock_dir=Path(sys.argv[1]), store_lease_ttl_s=60)
    graph = Graph.from_settings(settings)
    WriterLock.for_settings(settings, lambda: graph).acquire("graphwire ingest corpus.json")
    print("held", flush=True)
    time.sleep(120)
    """
)


def test_a_writer_killed_on_this_machine_is_taken_over_at_once(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_settings.neo4j_uri,
        "NEO4J_PASSWORD": neo4j_settings.resolved_neo4j_password(),
    }
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "locks")], env=env, stdout=subprocess.PIPE,
                              text=True)  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    lock = _lock(neo4j_settings, graph, tmp_path)
    with pytest.raises(StoreBusyError):
        lock.acquire("while it lives")
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert [r["pid"] for r in _lease_rows(graph)] == [holder.pid]  # its lease is left, for 60 s
    with lock.hold("after the kill"):  # no wait: the holder's pid is gone from this machine
        assert [r["pid"] for r in _lease_rows(graph)] == [os.getpid()]
