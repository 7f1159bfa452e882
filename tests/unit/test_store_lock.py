"""One writer at a time per store: a second process is refused with a message naming the holder; a killed holder
releases the lock (the kernel drops flock locks with the process)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from graphwire.core.settings import Settings
from graphwire.core.stores.store_lock import StoreBusyError, WriterLock, store_name

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from graphwire.core.settings import Settings
    from graphwire.core.stores.store_lock import WriterLock

    lock = WriterLock.for_settings(Settings(store_lock_dir=Path(sys.argv[1]), neo4j_uri=sys.argv[2]))
    lock.acquire("graphwire ingest corpus.json")
    print("held", flush=True)
    time.sleep(float(sys.argv[3]))
    """
)


def _hold_in_subprocess(lock_dir: Path, uri: str, seconds: float) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_dir), uri, str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def _settings(lock_dir: Path, uri: str = "bolt://127.0.0.1:17111") -> Settings:
    return Settings(store_lock_dir=lock_dir, neo4j_uri=uri)


def test_a_second_writer_is_refused_with_the_holder_named(tmp_path: Path) -> None:
    holder = _hold_in_subprocess(tmp_path, "bolt://127.0.0.1:17111", 60)
    try:
        with pytest.raises(StoreBusyError) as refused:
            WriterLock.for_settings(_settings(tmp_path)).acquire("second writer")
        message = str(refused.value)
        assert f"pid {holder.pid}" in message and "graphwire ingest corpus.json" in message
        assert "bolt://127.0.0.1:17111/neo4j" in message
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_releases_the_lock_and_a_waiting_writer_gets_it(tmp_path: Path) -> None:
    holder = _hold_in_subprocess(tmp_path, "bolt://localhost:17111", 60)
    lock = WriterLock.for_settings(_settings(tmp_path))  # localhost and 127.0.0.1 are the same store
    with pytest.raises(StoreBusyError):
        lock.acquire("early")
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    with lock.hold("after the kill", wait_s=10):
        assert lock.held and lock.holder() is not None
        assert lock.holder().pid == os.getpid()  # type: ignore[union-attr]
    assert not lock.held and lock.holder() is None


def test_a_writer_waits_for_the_holder_to_finish(tmp_path: Path) -> None:
    holder = _hold_in_subprocess(tmp_path, "bolt://127.0.0.1:17111", 1.0)
    with WriterLock.for_settings(_settings(tmp_path)).hold("patient", wait_s=30) as lock:
        assert lock.held
        assert holder.wait(timeout=30) == 0  # the holder finished: that is how this writer got the lock


def test_other_stores_and_the_same_process_twice(tmp_path: Path) -> None:
    first = WriterLock.for_settings(_settings(tmp_path))
    with first.hold("one"):
        with WriterLock.for_settings(_settings(tmp_path, "bolt://127.0.0.1:17112")).hold("another store"):
            pass
        with pytest.raises(StoreBusyError):  # a second lock object of the same process is a second writer
            WriterLock.for_settings(_settings(tmp_path)).acquire("two")
    assert store_name(_settings(tmp_path, "bolt://localhost:7687")) == "bolt://127.0.0.1:7687/neo4j"
