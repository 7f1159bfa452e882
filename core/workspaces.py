"""Workspaces: named, isolated knowledge bases in one Neo4j database and one vector store (docs/security.md).

Every node a workspace holds carries its name in `workspace`, and every statement under cypher/ reads and writes
`{workspace: $workspace}` (`Graph` passes its own); keys are unique within a workspace. What lives outside Neo4j is
named per workspace here: the Chroma collection, the ingest state folder and the caches. `default` is the workspace
of a store written before workspaces, and keeps today's names, so a single-user setup changes nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

DEFAULT_WORKSPACE = "default"
# fits a Chroma collection name (which ends in a letter or digit) and a file name; no path, no Cypher
NAME = re.compile(r"^[a-z](?:[a-z0-9_-]{0,38}[a-z0-9])?$")


class WorkspaceNameError(ValueError):
    """A workspace name that is not 1-40 lower-case letters, digits, `_` or `-`, starting with a letter
    and ending with a letter or a digit."""


def checked(name: str) -> str:
    """`name` when it is a valid workspace name, else a `WorkspaceNameError` saying why."""
    if not isinstance(name, str) or not NAME.match(name):
        raise WorkspaceNameError(
            f"invalid workspace name {name!r}: 1-40 lower-case letters, digits, '_' or '-', "
            "from a letter to a letter or a digit"
        )
    return name


def collection(base: str, workspace: str) -> str:
    """The Chroma collection of `workspace` (`base` itself for the default workspace)."""
    suffix = f"__{workspace}"
    return base if workspace == DEFAULT_WORKSPACE or base.endswith(suffix) else base + suffix


def folder(base: Path, workspace: str) -> Path:
    """A per-workspace folder beside `base` (`base` itself for the default workspace)."""
    suffix = f"-{workspace}"
    return base if workspace == DEFAULT_WORKSPACE or base.name.endswith(suffix) else base.with_name(base.name + suffix)


def file(base: Path, workspace: str) -> Path:
    """A per-workspace file beside `base`, the name before its suffix extended (`base` for the default workspace)."""
    suffix = f"-{workspace}"
    if workspace == DEFAULT_WORKSPACE or base.stem.endswith(suffix):
        return base
    return base.with_name(base.stem + suffix + base.suffix)


def unnamed(value: str, workspace: str, separator: str) -> str:
    """`value` without the suffix `separator + workspace` that `collection`, `folder` or `file` gave it."""
    suffix = f"{separator}{workspace}"
    return value[: -len(suffix)] if workspace != DEFAULT_WORKSPACE and value.endswith(suffix) else value
