"""The MCP tools over questions and the graph: `ask`, `retrieve`, `find_entities`, `neighbourhood`, `path`. Each one
calls what its HTTP route calls (POST /v1/query and /v1/retrieve through app/querying.py; GET /v1/entities,
/v1/graph/neighborhood and /v1/graph/path through app/graph_access.py).

No `from __future__ import annotations` here: the tools are defined inside `register`, and their parameter types
carry the server's own limits (MAX_QUESTION_CHARS, MAX_TOP_K), which the SDK reads from the live annotations.
"""

from collections.abc import Callable
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from graphwire.app.graph_access import (
    EntitiesResponse,
    entity_neighborhood,
    entity_path,
    find_entities,
    reader_scope,
)
from graphwire.app.mcp.models import AskResult, RetrieveResult
from graphwire.app.mcp.server import current_caller
from graphwire.app.querying import QueryRequest, RetrieveRequest, answer_query, retrieve_only
from graphwire.app.services import Services
from graphwire.core.settings import Settings
from graphwire.retrieval.paths import MAX_HOPS_NEIGHBORHOOD, MAX_HOPS_PATH, EntityPath, Neighborhood
from graphwire.retrieval.registry import DEFAULT_MODE, AnswererName, ModeName

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
EntityName = Annotated[str, Field(min_length=1, max_length=200, description="An entity name, alias or key.")]


def register(server: MCPServer, settings: Settings, services: Callable[[], Services]) -> None:
    Question = Annotated[
        str,
        Field(
            min_length=1,
            max_length=settings.max_question_chars,
            description="The question, in plain text, e.g. 'Who is the chief executive of the company Paradigm "
            "Ventures invested in?'",
        ),
    ]
    Mode = Annotated[
        ModeName,  # an enum of the registered modes, built at import
        Field(description="The retrieval mode: joint (the default) combines the graph with flat retrieval."),
    ]
    TopK = Annotated[int, Field(ge=1, le=settings.max_top_k, description="How many chunks to retrieve.")]

    @server.tool(title="Ask a question", annotations=READ_ONLY)
    async def ask(
        question: Question,
        mode: Mode = DEFAULT_MODE,
        answerer: Annotated[
            AnswererName, Field(description="auto: the LLM when one is configured, else the extractive answerer.")
        ] = AnswererName.AUTO,
        top_k: TopK = 10,
    ) -> AskResult:
        """Answer a question from the knowledge graph and its documents, citing the chunks the answer rests on (open a
        citation's `uri` as a resource to read it). Multi-hop questions, whose answer joins facts from several
        documents, are what the graph is for. Abstains with exactly "Insufficient information." when the documents
        do not answer it."""
        body = QueryRequest(question=question, mode=mode, answerer=answerer, top_k=top_k)
        current = services()
        return AskResult.of(await answer_query(body, current.settings, current.retrieval, current_caller().reader()))

    @server.tool(title="Retrieve passages and facts", annotations=READ_ONLY)
    async def retrieve(
        question: Question,
        mode: Mode = DEFAULT_MODE,
        top_k: TopK = 10,
        include_context: Annotated[
            bool, Field(description="Return the passages' texts and the facts' evidence sentences.")
        ] = True,
    ) -> RetrieveResult:
        """The passages (ranked chunks) and graph facts a question retrieves, without answering it: to read the
        evidence yourself."""
        body = RetrieveRequest(question=question, mode=mode, top_k=top_k, include_context=include_context)
        current = services()
        reader = current_caller().reader()
        return RetrieveResult.of(await retrieve_only(body, current.settings, current.retrieval, reader))

    @server.tool(name="find_entities", title="Find entities", annotations=READ_ONLY)
    def find_entities_tool(  # named apart from the shared `find_entities` it calls
        name: Annotated[str, Field(min_length=1, max_length=200, description="A name, alias or part of one.")],
        label: Annotated[
            str | None, Field(description="Only entities with this label of the schema, e.g. Person, Organization.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="At most this many.")] = 10,
    ) -> EntitiesResponse:
        """Entities whose name or alias matches `name` (exact, prefix, substring, then fuzzy), best first, with their
        labels, aliases, mentions and degree. Use an entity's `key` where a name is ambiguous."""
        current = services()
        scope = reader_scope(current.retrieval, current_caller().reader())
        return find_entities(current.graph_provider.get(), current.settings, name, limit, label, scope)

    @server.tool(title="Neighbourhood of an entity", annotations=READ_ONLY)
    def neighbourhood(
        entity: EntityName,
        hops: Annotated[int, Field(ge=1, le=MAX_HOPS_NEIGHBORHOOD, description="Hops from the entity.")] = 1,
        budget: Annotated[int, Field(ge=1, le=500, description="At most this many facts per hop.")] = 50,
    ) -> Neighborhood:
        """The facts within `hops` hops of an entity, hop by hop, each with the chunks it came from, and how many
        facts and tokens each hop adds."""
        current = services()
        scope = reader_scope(current.retrieval, current_caller().reader())
        return entity_neighborhood(current.graph_provider.get(), current.settings, entity, hops, budget, scope)

    @server.tool(title="Path between two entities", annotations=READ_ONLY)
    def path(
        source: EntityName,
        target: EntityName,
        max_hops: Annotated[int, Field(ge=1, le=MAX_HOPS_PATH, description="Longest path searched.")] = MAX_HOPS_PATH,
    ) -> EntityPath:
        """A shortest path between two entities over the graph's facts, each hop with its supporting chunks."""
        current = services()
        scope = reader_scope(current.retrieval, current_caller().reader())
        return entity_path(current.graph_provider.get(), current.settings, source, target, max_hops, scope)
