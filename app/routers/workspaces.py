"""/v1/workspaces: the workspaces of the store. Anyone authenticated lists those they hold a role in; a workspace's
readers describe it; a server admin creates and deletes them. A thin surface over app/workspaces.py, which goes
through the registry `graphwire workspace` uses too (core/stores/workspace_registry.py; docs/security.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Response
from pydantic import BaseModel, Field, field_validator

from graphwire.app.deps import PrincipalDep, RoleCheck, ServerAdminDep, WorkspacesDep
from graphwire.core import workspaces
from graphwire.core.auth.models import Principal, Role
from graphwire.core.stores.workspace_registry import WorkspaceInfo

router = APIRouter(prefix="/workspaces", tags=["workspaces"])
Name = Annotated[str, Path(description="The workspace's name.", examples=["team-b"])]
# the role checks of a route whose path names the workspace: a bad name is a 422 before anything else
NAMED_READER = Depends(RoleCheck(Role.READER, workspace_param="name"))
NamedServerAdminDep = Annotated[Principal, Depends(RoleCheck(None, workspace_param="name"))]


class NewWorkspace(BaseModel):
    name: str = Field(
        description="1-40 lower-case letters, digits, '_' or '-', from a letter to a letter or a digit.",
        examples=["team-b"],
    )

    @field_validator("name")
    @classmethod
    def _valid(cls, name: str) -> str:
        return workspaces.checked(name)


@router.get("", response_model=list[WorkspaceInfo])
def list_workspaces(caller: PrincipalDep, spaces: WorkspacesDep) -> list[WorkspaceInfo]:
    """The workspaces the caller holds a role in (a server admin: every one), with their counts."""
    return spaces.entries(caller)


@router.post(
    "",
    status_code=201,
    response_model=WorkspaceInfo,
    responses={200: {"model": WorkspaceInfo, "description": "The workspace existed already; nothing changed."}},
)
def create_workspace(
    body: NewWorkspace, caller: ServerAdminDep, spaces: WorkspacesDep, response: Response
) -> WorkspaceInfo:
    """Create an empty workspace: 201, or 200 when it exists already; 409 while one of that name is being deleted.
    Requests name it in `X-Graphwire-Workspace`; grants give roles in it (/v1/auth/grants)."""
    info, created = spaces.create(body.name, caller)
    if not created:
        response.status_code = 200
    return info


@router.get("/{name}", response_model=WorkspaceInfo, dependencies=[NAMED_READER])
def describe_workspace(name: Name, spaces: WorkspacesDep) -> WorkspaceInfo:
    """A workspace's counts (relationships between entities too), who created it and when, and its state."""
    return spaces.describe(name)


@router.delete("/{name}", status_code=202, response_model=WorkspaceInfo)
def delete_workspace(name: Name, caller: NamedServerAdminDep, spaces: WorkspacesDep) -> WorkspaceInfo:
    """Delete a workspace and everything in it (202: its state is `deleting` until it is gone, then GET answers
    404). Requests naming it get 409 meanwhile. The delete runs in bounded transactions; a stop or a crash during it
    leaves it marked, and the API finishes it when it next starts. The process's own workspace is refused (409)."""
    return spaces.delete(name, caller)
