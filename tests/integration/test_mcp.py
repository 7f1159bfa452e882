"""The MCP server driven by the `mcp` SDK's own client over both transports, against the demo graph in a real Neo4j
and Chroma: `graphwire mcp` as a stdio subprocess (as a desktop agent starts it), and /mcp of the API served by a real
uvicorn process (streamable HTTP). Over each: the tools are listed, a demo question is answered with its citations, a
cited chunk and a document are opened as resources, a document is added (a job) and deleted, and bad arguments or an
unknown id come back as MCP errors with the API's message, no traceback. Over HTTP the API key is required."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextResourceContents
from support.api_process import ROOT, ApiProcess, settings_env
from support.demo import ingest_demo

from graphwire.app.mcp.models import document_uri
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.models import ABSTENTION

pytestmark = pytest.mark.integration
QUESTION = "Who is the chief executive of the Berlin chip startup that Paradigm Ventures invested in?"
CITED = "Lumen Labs names Ada Park chief executive as it readies first chip"
API_KEY = "mcp-test-key-0123456789"
COLLECTION = "mcp_demo"
READ_TOOLS = {"ask", "retrieve", "find_entities", "neighbourhood", "path", "list_documents", "get_document", "get_job"}
NEW_DOCUMENT = {
    "title": "Tidewater Optics names Ines Duarte chief executive",
    "body": "Tidewater Optics, a Porto maker of laser sensors, named Ines Duarte chief executive on Monday. "
    "Tidewater Optics CEO Ines Duarte said the company would double its sensor output next year.",
    "source": "Circuit Weekly",
    "published_at": "2026-03-20",
    "url": "https://demo.graphwire.dev/circuit-weekly/tidewater-names-duarte",
}


@pytest.fixture(scope="module")
def demo_settings(
    session_graph: Graph, neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Settings]:
    session_graph.write("admin/wipe")
    stores = tmp_path_factory.mktemp("mcp-stores")
    paths = {"chroma_path": stores / "chroma", "ingest_state_path": stores / "state"}
    settings = neo4j_settings.model_copy(update={**paths, "chroma_collection": COLLECTION})
    ingest_demo(session_graph, settings)
    yield settings
    session_graph.write("admin/wipe")


def server_env(settings: Settings, **extra: str) -> dict[str, str]:
    return settings_env(settings, CHROMA_COLLECTION=COLLECTION, **extra)


def text_of(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


async def refused(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result
    text = text_of(result)
    assert "Traceback" not in text and 'File "' not in text
    return text


async def read_text(client: Client, uri: str) -> str:
    result = await client.read_resource(uri)
    [content] = result.contents
    assert isinstance(content, TextResourceContents)
    return content.text


async def exercise(client: Client) -> None:
    """What an agent does, over whichever transport `client` uses."""
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == READ_TOOLS | {"add_documents", "delete_document"}
    assert tools["ask"].input_schema["required"] == ["question"] and tools["ask"].output_schema is not None
    assert tools["delete_document"].annotations is not None and tools["delete_document"].annotations.destructive_hint
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert templates == {"graphwire://documents/{+id}", "graphwire://chunks/{id}"}

    answer = await call(client, "ask", {"question": QUESTION, "mode": "graph"})
    assert (answer["answer"], answer["answer_status"], answer["abstained"]) == ("Ada Park", "answered", False)
    cited = {c["title"]: c for c in answer["citations"]}
    assert CITED in cited and cited[CITED]["publication"] == "The Ledger Daily"
    assert any(f["relationship"] == "INVESTED_IN" and f["object"] == "Lumen Labs" for f in answer["facts"])
    chunk = await read_text(client, cited[CITED]["uri"])  # the citation opened as a resource
    assert chunk.startswith("[Source: The Ledger Daily | Title: Lumen Labs names Ada Park") and "Ada Park" in chunk

    passages = (await call(client, "retrieve", {"question": QUESTION, "top_k": 3}))["passages"]
    assert len(passages) == 3 and all(p["text"] and p["uri"].startswith("graphwire://chunks/") for p in passages)
    [lumen] = (await call(client, "find_entities", {"name": "Lumen Labs", "label": "Organization"}))["entities"][:1]
    assert lumen["name"] == "Lumen Labs"
    hop = (await call(client, "neighbourhood", {"entity": "Lumen Labs", "hops": 1, "budget": 5}))["hops"][0]
    assert 0 < len(hop["facts"]) <= 5
    steps = (await call(client, "path", {"source": "Paradigm Ventures", "target": "Ada Park"}))["steps"]
    assert [s["to_entity"]["name"] for s in steps] == ["Lumen Labs", "Ada Park"]  # CEO_OF or FOUNDED: equally short
    assert steps[0]["fact"]["relationship"] == "INVESTED_IN" and all(s["sources"] for s in steps)
    listed = await call(client, "list_documents", {"source": "The Ledger Daily", "limit": 100})
    assert CITED in {d["title"] for d in listed["items"]} and listed["total"] == len(listed["items"])
    document = await read_text(client, next(d["uri"] for d in listed["items"] if d["title"] == CITED))
    assert document.startswith(f"# {CITED}\n\nThe Ledger Daily | 2026-03-04 |") and "Ada Park" in document

    # bad arguments and unknown ids: the API's messages, as tool errors
    assert "mode: Input should be 'joint'" in await refused(client, "ask", {"question": "Who?", "mode": "telepathy"})
    assert "question: Field required" in await refused(client, "ask", {"mode": "graph"})
    assert "hops: Input should be less than or equal to 3" in await refused(
        client, "neighbourhood", {"entity": "Lumen Labs", "hops": 9}
    )
    assert "unknown label 'Spaceship' (validation_error)" in await refused(
        client, "find_entities", {"name": "Lumen", "label": "Spaceship"}
    )
    assert "LLM_BASE_URL" in await refused(client, "ask", {"question": QUESTION, "answerer": "llm"})
    assert "no document with id 'nope' (not_found)" in await refused(client, "get_document", {"id": "nope"})
    with pytest.raises(MCPError, match="no chunk with id 'nope'"):
        await client.read_resource("graphwire://chunks/nope")

    # a document added through the API's job, answerable, then deleted through the API's delete
    job = await call(client, "add_documents", {"documents": [NEW_DOCUMENT], "wait_s": 170})
    assert job["state"] == "succeeded" and job["progress"]["documents_done"] == 1, job
    stored = await call(client, "get_document", {"id": NEW_DOCUMENT["url"]})
    assert stored["text"] == NEW_DOCUMENT["body"] and stored["uri"] == document_uri(NEW_DOCUMENT["url"])
    places = stored["chunk_places"]
    assert [p["id"] for p in places] == stored["chunk_ids"] and places[0]["char_start"] == 0
    assert places[-1]["char_end"] == len(NEW_DOCUMENT["body"])  # offsets into the body as stored
    new_answer = await call(client, "ask", {"question": "Who is the chief executive of Tidewater Optics?"})
    assert new_answer["answer"] == "Ines Duarte", new_answer
    deleted = await call(client, "delete_document", {"id": NEW_DOCUMENT["url"]})
    assert deleted["deleted"] and deleted["chunks"] == len(stored["chunk_ids"])
    assert "(not_found)" in await refused(client, "delete_document", {"id": NEW_DOCUMENT["url"]})
    gone = await call(client, "ask", {"question": "Who is the chief executive of Tidewater Optics?"})
    assert gone["answer"] == ABSTENTION


def test_graphwire_mcp_over_stdio(demo_settings: Settings, tmp_path: Path) -> None:
    env = server_env(demo_settings, STORE_LOCK_DIR=str(tmp_path / "locks"))
    command = StdioServerParameters(command=sys.executable, args=["-m", "graphwire.cli.main", "mcp"], env=env, cwd=ROOT)

    async def scenario() -> None:
        async with Client(command, read_timeout_seconds=240) as client:
            assert client.server_info is not None and client.server_info.name == "graphwire"
            await exercise(client)

    anyio.run(scenario)


def test_the_api_serves_mcp_at_slash_mcp_behind_the_api_key(demo_settings: Settings, tmp_path: Path) -> None:
    env = server_env(demo_settings, API_KEY=API_KEY, STORE_LOCK_DIR=str(tmp_path / "locks"))
    with ApiProcess(env, tmp_path / "api.log") as api:
        url = f"{api.url}/mcp"

        async def scenario(key: str) -> None:
            headers = {"X-API-Key": key}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=240)) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                await exercise(client)

        anyio.run(scenario, API_KEY)
        # without the key, or with a wrong one: refused before the body is read, as every /v1 route
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"X-API-Key": "wrong"}, {"Authorization": "Bearer wrong"}):
            response = httpx.post(url, json=message, headers=headers, timeout=10)
            assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"
        with pytest.raises(ExceptionGroup) as refusal:  # the SDK's client gives up on the 401 at once
            anyio.run(scenario, "wrong")
        assert refusal.group_contains(MCPError, match="error response")
