"""Dependency aliases for routers: declare `graph: GraphDep` in an endpoint and FastAPI provides it.

    @router.get("/things")
    def things(graph: GraphDep, settings: SettingsDep) -> ...: ...

Every /v1 request passes the API key check (`ApiKeyMiddleware`, app/middleware.py) before its body is read.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from chromadb.api import ClientAPI
from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from graphwire.app.errors import ApiError
from graphwire.app.feeds import FeedPoller
from graphwire.app.jobs.service import DocumentWrites
from graphwire.app.resources import ChromaProvider, GraphProvider
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.curation.service import Curation
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.retrieval.registry import RetrievalContext

API_KEY_HEADER = "X-API-Key"
UNAUTHORIZED_MESSAGE = f"missing or invalid {API_KEY_HEADER} header (or Authorization: Bearer)"
_api_key_scheme = APIKeyHeader(
    name=API_KEY_HEADER, auto_error=False, description="Required on /v1 routes when the server sets API_KEY."
)
_bearer_scheme = HTTPBearer(auto_error=False, description="The same key as a bearer token (OpenAI clients).")


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_graph_provider(request: Request) -> GraphProvider:
    provider: GraphProvider = request.app.state.graph_provider
    return provider


def get_chroma_provider(request: Request) -> ChromaProvider:
    provider: ChromaProvider = request.app.state.chroma_provider
    return provider


def get_document_writes(request: Request) -> DocumentWrites:
    """The app's document jobs and deletes (app/jobs/service.py), built once in the lifespan."""
    writes: DocumentWrites = request.app.state.document_writes
    return writes


def get_feeds(request: Request) -> FeedPoller:
    """The process's feed watcher (app/feeds.py), built in the app's lifespan."""
    feeds: FeedPoller = request.app.state.services.feeds
    return feeds


def get_curation(request: Request) -> Curation:
    """The app's graph edits (ingest/curation/service.py), built once in the lifespan."""
    curation: Curation = request.app.state.curation
    return curation


def get_exchange(request: Request) -> GraphExchange:
    """The app's graph export and import (ingest/exchange/service.py), built once in the lifespan."""
    exchange: GraphExchange = request.app.state.exchange
    return exchange


def get_retrieval(request: Request) -> RetrievalContext:
    """The app's one `RetrievalContext`: every mode, and the graph services they share, built once per process."""
    context: RetrievalContext = request.app.state.retrieval
    return context


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
GraphProviderDep = Annotated[GraphProvider, Depends(get_graph_provider)]
ChromaProviderDep = Annotated[ChromaProvider, Depends(get_chroma_provider)]


def get_graph(provider: GraphProviderDep) -> Graph:
    """The shared Graph; raises (-> 503) when Neo4j is not configured or unreachable."""
    return provider.get()


def get_chroma(provider: ChromaProviderDep) -> ClientAPI:
    client: ClientAPI = provider.get()
    return client


def key_accepted(settings: Settings, api_key: str | None, bearer: str | None) -> bool:
    """No API_KEY configured, or the X-API-Key value (else the bearer token) equals it (constant-time comparison)."""
    if settings.api_key is None:
        return True
    given = api_key if api_key is not None else bearer
    return given is not None and secrets.compare_digest(given.encode(), settings.api_key.get_secret_value().encode())


def caller_has_key(request: Request, settings: Settings) -> bool:
    """Whether this request may see details (/health, /version): no API_KEY is set, or it carries the key."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return key_accepted(
        settings, request.headers.get(API_KEY_HEADER), token.strip() if scheme.lower() == "bearer" else None
    )


def require_api_key(
    settings: SettingsDep,
    api_key: Annotated[str | None, Security(_api_key_scheme)] = None,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer_scheme)] = None,
) -> None:
    """With API_KEY set, the request must carry the same value in X-API-Key, or as `Authorization: Bearer <key>`
    (what OpenAI SDKs and chat front ends send). `ApiKeyMiddleware` already refused other /v1 requests before their
    body was read; on the v1 router (only when a key is configured) this declares the scheme in OpenAPI."""
    if not key_accepted(settings, api_key, bearer.credentials if bearer is not None else None):
        raise ApiError(401, "unauthorized", UNAUTHORIZED_MESSAGE)


GraphDep = Annotated[Graph, Depends(get_graph)]
ChromaDep = Annotated[ClientAPI, Depends(get_chroma)]
ApiKeyDep = Annotated[None, Depends(require_api_key)]
RetrievalDep = Annotated[RetrievalContext, Depends(get_retrieval)]
DocumentWritesDep = Annotated[DocumentWrites, Depends(get_document_writes)]
CurationDep = Annotated[Curation, Depends(get_curation)]
FeedsDep = Annotated[FeedPoller, Depends(get_feeds)]
ExchangeDep = Annotated[GraphExchange, Depends(get_exchange)]
