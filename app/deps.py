"""Dependency aliases for routers: declare `graph: GraphDep` in an endpoint and FastAPI provides it.

    @router.get("/things")
    def things(graph: GraphDep, settings: SettingsDep) -> ...: ...

Every /v1 request passes the credentials check (`ApiKeyMiddleware`, app/middleware.py) before its body is read; the
routes then check the caller's role with `READER`, `WRITER` or `SERVER_ADMIN` (`RoleCheck`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from chromadb.api import ClientAPI
from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from graphwire.app.auth.authenticate import PRINCIPAL_SCOPE_KEY, Authenticator, AuthFailure
from graphwire.app.errors import ApiError
from graphwire.app.feeds import FeedPoller
from graphwire.app.graph_access import require_whole_store
from graphwire.app.jobs.service import DocumentWrites
from graphwire.app.resources import ChromaProvider, GraphProvider
from graphwire.app.services import Services
from graphwire.app.workspaces import WorkspaceServices
from graphwire.core import workspaces
from graphwire.core.auth.audit import AuditTrail
from graphwire.core.auth.models import Principal, Role
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.curation.service import Curation
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.retrieval.registry import RetrievalContext

API_KEY_HEADER = "X-API-Key"
UNAUTHORIZED_MESSAGE = f"missing or invalid {API_KEY_HEADER} header (or Authorization: Bearer)"
_api_key_scheme = APIKeyHeader(
    name=API_KEY_HEADER,
    auto_error=False,
    description="Required on /v1 routes unless AUTH_MODE is none: API_KEY, or a principal's gw_ key.",
)
_bearer_scheme = HTTPBearer(
    auto_error=False, description="The same key as a bearer token (OpenAI clients), or an OIDC token."
)


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_graph_provider(request: Request) -> GraphProvider:
    """The graph provider of the request's workspace (one driver for every workspace)."""
    return get_services(request).graph_provider


def get_chroma_provider(request: Request) -> ChromaProvider:
    provider: ChromaProvider = request.app.state.chroma_provider
    return provider


def request_workspace(request: Request) -> str:
    """The workspace the request acts in: its principal's (X-Graphwire-Workspace, else the served one)."""
    principal = request.scope.get(PRINCIPAL_SCOPE_KEY)
    settings: Settings = request.app.state.settings
    return principal.workspace if isinstance(principal, Principal) else settings.workspace


def get_services(request: Request) -> Services:
    """The services of the request's workspace (app/workspaces.py `WorkspaceServices`, built in the lifespan): 404
    when it does not exist, 409 while it is being deleted."""
    return get_workspaces(request).of(request_workspace(request))


def get_workspaces(request: Request) -> WorkspaceServices:
    """The process's workspaces: their services, and their creation, description and deletion."""
    spaces: WorkspaceServices = request.app.state.workspaces
    return spaces


def get_document_writes(request: Request) -> DocumentWrites:
    """The workspace's document jobs and deletes (app/jobs/service.py)."""
    return get_services(request).document_writes


def get_feeds(request: Request) -> FeedPoller:
    """The process's feed watcher (app/feeds.py), built in the app's lifespan."""
    feeds: FeedPoller = request.app.state.services.feeds
    return feeds


def get_curation(request: Request) -> Curation:
    """The workspace's graph edits (ingest/curation/service.py)."""
    return get_services(request).curation


def get_exchange(request: Request) -> GraphExchange:
    """The workspace's graph export and import (ingest/exchange/service.py)."""
    return get_services(request).exchange


def get_audit(request: Request) -> AuditTrail:
    """The process's audit trail of document and graph writes (core/auth/audit.py), built in the lifespan."""
    audit: AuditTrail = request.app.state.services.audit
    return audit


def get_retrieval(request: Request) -> RetrievalContext:
    """The workspace's `RetrievalContext`: every mode, and the graph services they share, built once per process."""
    return get_services(request).retrieval


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
GraphProviderDep = Annotated[GraphProvider, Depends(get_graph_provider)]
ChromaProviderDep = Annotated[ChromaProvider, Depends(get_chroma_provider)]


def get_graph(provider: GraphProviderDep) -> Graph:
    """The shared Graph, reading and writing the request's workspace; raises (-> 503) when Neo4j is not configured
    or unreachable."""
    return provider.get()


def get_chroma(provider: ChromaProviderDep) -> ClientAPI:
    client: ClientAPI = provider.get()
    return client


def get_authenticator(request: Request) -> Authenticator:
    authenticator: Authenticator = request.app.state.authenticator
    return authenticator


def caller_has_key(request: Request, settings: Settings) -> bool:
    """Whether this request may see details (/health, /version): the server is open, or the request authenticates."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" else None
    try:
        get_authenticator(request).identify(request.headers.get(API_KEY_HEADER), bearer)
    except AuthFailure:
        return False
    return True


def current_principal(request: Request) -> Principal:
    """The caller `ApiKeyMiddleware` authenticated (every /v1 and /mcp request has one)."""
    principal = request.scope.get(PRINCIPAL_SCOPE_KEY)
    if not isinstance(principal, Principal):
        raise ApiError(401, "unauthorized", UNAUTHORIZED_MESSAGE)
    return principal


def require_api_key(
    request: Request,
    api_key: Annotated[str | None, Security(_api_key_scheme)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer_scheme)] = None,
) -> None:
    """On the v1 router when AUTH_MODE is not none: declares X-API-Key and the bearer scheme in OpenAPI. The check
    itself is `ApiKeyMiddleware`'s, before the body is read; this only insists that it ran."""
    current_principal(request)


@dataclass(frozen=True)
class RoleCheck:
    """A dependency: the caller needs `role` in the workspace it acts in (server admins have every role), or to be a
    server admin (`role` None). 403 otherwise, before the route runs. tests/unit/test_route_roles.py finds these on
    every route."""

    role: Role | None
    workspace_param: str | None = None  # the path parameter naming the workspace to check in, if not the request's

    def __call__(self, request: Request) -> Principal:
        principal = current_principal(request)
        workspace = None  # the one it acts in (Authenticator.authenticate)
        if self.workspace_param is not None:
            try:
                workspace = workspaces.checked(request.path_params[self.workspace_param])
            except workspaces.WorkspaceNameError as exc:
                raise ApiError(422, "invalid_workspace", str(exc)) from exc
        refusal = principal.refusal(self.role, workspace)
        if refusal is not None:
            raise ApiError(403, "forbidden", refusal)
        return principal


def require_role(role: Role) -> RoleCheck:
    return RoleCheck(role)


def whole_store_reader(request: Request, graph: Annotated[Graph, Depends(get_graph)]) -> None:
    """For routers whose every route shows the whole graph (graph edits, export and import): 403 for a caller some
    documents are closed to, once any document has an access list (app/graph_access.py)."""
    require_whole_store(graph, current_principal(request).reader())


READER = Depends(require_role(Role.READER))
WHOLE_STORE = Depends(whole_store_reader)
WRITER = Depends(require_role(Role.WRITER))
ADMIN = Depends(require_role(Role.ADMIN))
SERVER_ADMIN = Depends(RoleCheck(None))
PrincipalDep = Annotated[Principal, Depends(current_principal)]
ServerAdminDep = Annotated[Principal, SERVER_ADMIN]
AuthenticatorDep = Annotated[Authenticator, Depends(get_authenticator)]
GraphDep = Annotated[Graph, Depends(get_graph)]
ChromaDep = Annotated[ClientAPI, Depends(get_chroma)]
RetrievalDep = Annotated[RetrievalContext, Depends(get_retrieval)]
DocumentWritesDep = Annotated[DocumentWrites, Depends(get_document_writes)]
CurationDep = Annotated[Curation, Depends(get_curation)]
FeedsDep = Annotated[FeedPoller, Depends(get_feeds)]
ExchangeDep = Annotated[GraphExchange, Depends(get_exchange)]
AuditDep = Annotated[AuditTrail, Depends(get_audit)]
WorkspacesDep = Annotated[WorkspaceServices, Depends(get_workspaces)]
