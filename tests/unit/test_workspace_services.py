"""The API's workspaces (app/workspaces.py): another workspace's services are made on its first request and kept, at
most WORKSPACES_LOADED_MAX of them; past that the one asked least recently with no job running or waiting is let go
(its job worker stopped); unknown and deleting workspaces are refused before anything is made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from graphwire.app import workspaces as app_workspaces
from graphwire.app.errors import ApiError
from graphwire.app.workspaces import WorkspaceServices
from graphwire.core.settings import Settings


@dataclass
class FakeRunner:
    busy: bool = False

    def idle(self) -> bool:
        return not self.busy


@dataclass
class FakeServices:
    name: str
    settings: Settings
    made: list[str] = field(default_factory=list)
    stopped: bool = False
    runner: FakeRunner = field(default_factory=FakeRunner)

    @property
    def document_writes(self) -> Any:
        return self

    def in_workspace(self, workspace: str) -> FakeServices:
        self.made.append(workspace)
        return FakeServices(workspace, self.settings.for_workspace(workspace))

    def stop_workspace(self) -> None:
        self.stopped = True


@pytest.fixture
def spaces(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> WorkspaceServices:
    states = {"gone": (False, False), "leaving": (True, True)}
    monkeypatch.setattr(app_workspaces.workspace_registry, "state", lambda graph: states.get(graph, (True, False)))
    monkeypatch.setattr(WorkspaceServices, "graph", lambda self, workspace=None: workspace)
    served = FakeServices("default", Settings(_env_file=None, chroma_path=tmp_path, workspaces_loaded_max=2))  # type: ignore[call-arg]
    return WorkspaceServices(served)  # type: ignore[arg-type]


def test_the_served_workspace_is_never_made_again_nor_counted(spaces: WorkspaceServices) -> None:
    assert spaces.of("default") is spaces.served and spaces.served.made == []  # type: ignore[attr-defined]


def test_past_the_bound_the_least_recently_asked_idle_workspace_is_let_go(spaces: WorkspaceServices) -> None:
    a, b = spaces.of("a"), spaces.of("b")
    assert spaces.of("a") is a  # kept, and now asked more recently than b
    c = spaces.of("c")
    assert spaces.loaded() == ["a", "c"] and b.stopped and not a.stopped and not c.stopped  # type: ignore[attr-defined]
    assert spaces.of("b") is not b  # made again when asked
    assert spaces.served.made == ["a", "b", "c", "b"]  # type: ignore[attr-defined]


def test_a_workspace_with_a_job_running_or_waiting_is_kept_past_the_bound(spaces: WorkspaceServices) -> None:
    a = spaces.of("a")
    a.runner.busy = True  # type: ignore[attr-defined]
    b = spaces.of("b")
    spaces.of("c")
    assert spaces.loaded() == ["a", "c"] and b.stopped and not a.stopped  # type: ignore[attr-defined]
    spaces.of("d")  # a still busy, c the only idle one left before d
    assert spaces.loaded() == ["a", "d"]


def test_unknown_and_deleting_workspaces_are_refused_before_anything_is_made(spaces: WorkspaceServices) -> None:
    with pytest.raises(ApiError) as unknown:
        spaces.of("gone")
    assert (unknown.value.status, unknown.value.code) == (404, "unknown_workspace")
    with pytest.raises(ApiError) as leaving:
        spaces.of("leaving")
    assert (leaving.value.status, leaving.value.code) == (409, "workspace_deleting")
    assert spaces.loaded() == [] and spaces.served.made == []  # type: ignore[attr-defined]
