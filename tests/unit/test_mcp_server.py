"""The MCP server without Neo4j: its tools and resources (the writing tools only with MCP_ALLOW_WRITES), errors as
the API's messages, and /mcp of the app behind the API key, the body limits and, without a key, the Host check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from neo4j.exceptions import ServiceUnavailable
from pydantic import BaseModel, SecretStr, ValidationError

from graphwire.app.errors import ApiError
from graphwire.app.main import create_app
from graphwire.app.mcp.models import chunk_uri, document_uri
from graphwire.app.mcp.server import build_server, describe
from graphwire.app.middleware import BodyLimits
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

WRITES = {"add_documents", "delete_document"}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",  # nothing listens: no Neo4j of the environment is reached
        neo4j_password="unused",
        neo4j_apply_schema_on_start=False,
        chroma_path=tmp_path / "chroma",
        ingest_state_path=tmp_path / "state",
        **overrides,
    )


def _tool_names(settings: Settings) -> set[str]:
    async def names() -> set[str]:
        async with Client(build_server(settings, lambda: None)) as client:  # type: ignore[arg-type, return-value]
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(names)


def test_the_writing_tools_are_offered_only_with_mcp_allow_writes(tmp_path: Path) -> None:
    every = _tool_names(_settings(tmp_path))
    assert every >= WRITES | {"ask", "retrieve", "find_entities", "neighbourhood", "path"}
    assert _tool_names(_settings(tmp_path, mcp_allow_writes=False)) == every - WRITES


def test_tool_inputs_carry_the_servers_limits(tmp_path: Path) -> None:
    async def ask_schema() -> dict[str, Any]:
        server = build_server(_settings(tmp_path, max_question_chars=300, max_top_k=7), lambda: None)  # type: ignore[arg-type, return-value]
        async with Client(server) as client:
            [ask] = [tool for tool in (await client.list_tools()).tools if tool.name == "ask"]
            return ask.input_schema

    properties = anyio.run(ask_schema)["properties"]
    assert properties["question"]["maxLength"] == 300 and properties["top_k"]["maximum"] == 7


def test_errors_carry_the_apis_message_code_and_details() -> None:
    error = ApiError(409, "ambiguous_entity", "entity: 'Kestrel' matches 2 entities", {"candidates": ["a", "b"]})
    assert describe(error) == (
        'entity: \'Kestrel\' matches 2 entities (ambiguous_entity); details: {"candidates": ["a", "b"]}'
    )
    down = describe(ServiceUnavailable("connection refused"))
    assert down is not None and down.startswith("Neo4j is unavailable") and "(neo4j_unavailable)" in down

    class Args(BaseModel):
        hops: int

    with pytest.raises(ValidationError) as invalid:
        Args.model_validate({"hops": "many"})
    assert describe(invalid.value) == "invalid arguments: hops: Input should be a valid integer, unable to parse " + (
        "string as an integer"
    )
    assert describe(KeyError("secret internals")) is None  # a crash: its text stays in the server's log


def test_resource_uris_percent_encode_ids() -> None:
    assert (
        document_uri("https://demo.graphwire.dev/a b")
        == "graphwire://documents/https%3A%2F%2Fdemo.graphwire.dev%2Fa%20b"
    )
    assert chunk_uri("0123abcd") == "graphwire://chunks/0123abcd"


def test_slash_mcp_wants_the_api_key_before_it_reads_the_body(tmp_path: Path) -> None:
    settings = _settings(tmp_path, api_key=SecretStr("s3cret-key"))
    with TestClient(create_app(settings)) as client:
        refused = client.post("/mcp", content=b"{not json", headers=HEADERS)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
        listed = client.post("/mcp", json=LIST_TOOLS, headers={**HEADERS, "X-API-Key": "s3cret-key"})
        assert listed.status_code == 200 and "ask" in {t["name"] for t in listed.json()["result"]["tools"]}
        bearer = client.post("/mcp", json=LIST_TOOLS, headers={**HEADERS, "Authorization": "Bearer s3cret-key"})
        assert bearer.status_code == 200  # as every /v1 route: X-API-Key or a bearer token
    assert BodyLimits(settings)("/mcp") == settings.upload_max_bytes  # add_documents carries what uploads carry


def test_without_a_key_slash_mcp_answers_only_requests_addressed_to_this_machine(tmp_path: Path) -> None:
    app = create_app(_settings(tmp_path))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.post("/mcp", json=LIST_TOOLS, headers=HEADERS).status_code == 200
        rebound = client.post("/mcp", json=LIST_TOOLS, headers={**HEADERS, "host": "attacker.example:8000"})
        assert rebound.status_code == 421  # a name resolved to 127.0.0.1 by someone else (DNS rebinding)
    bound_for_others = create_app(_settings(tmp_path, api_host="0.0.0.0", api_key=SecretStr("k")))
    with TestClient(bound_for_others, base_url="http://api.example.org") as client:
        assert client.post("/mcp", json=LIST_TOOLS, headers={**HEADERS, "X-API-Key": "k"}).status_code == 200
