"""The one door of every writer (core/stores/write_session.py): the lock and lease while open, then, however the writes
ended, a last store stamp, the lock released and the caches told."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.store_holder import StoreBusyError
from graphwire.core.stores.store_version import read_stamp
from graphwire.core.stores.write_session import WriteSession

pytestmark = pytest.mark.integration


def _settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(update={"store_lock_dir": tmp_path / "locks"})


def test_a_session_holds_the_store_then_stamps_releases_and_tells_the_caches(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    settings = _settings(neo4j_settings, tmp_path)
    told: list[str] = []
    before = read_stamp(graph)
    with WriteSession(settings, lambda: graph, "first writer", on_change=lambda: told.append("refresh")).open():
        with pytest.raises(StoreBusyError, match="first writer"):  # a second writer is refused, the holder named
            WriteSession(settings, lambda: graph, "second writer").open()
        assert told == []
    assert told == ["refresh"] and read_stamp(graph) != before
    with WriteSession(settings, lambda: graph, "second writer").open():  # released: the next one gets in at once
        pass


def test_writes_that_fail_still_end_the_session(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    settings = _settings(neo4j_settings, tmp_path)
    told: list[str] = []
    before = read_stamp(graph)
    session = WriteSession(settings, lambda: graph, "a failing run", on_change=lambda: told.append("refresh"))
    with pytest.raises(RuntimeError, match="half way"), session:
        raise RuntimeError("half way")
    assert told == ["refresh"] and read_stamp(graph) != before  # what it committed before failing is announced
    WriteSession(settings, lambda: graph, "next run").open().close()


def test_a_session_that_empties_the_store_leaves_no_stamp_behind(
    graph: Graph, neo4j_settings: Settings, tmp_path: Path
) -> None:
    settings = _settings(neo4j_settings, tmp_path)
    with WriteSession(settings, lambda: graph, "graphwire db reset", stamp=False):
        pass
    assert read_stamp(graph) == ""  # the reset's empty graph stays empty
