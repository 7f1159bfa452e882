"""The HTTP edges of the API: bounded bodies, the key checked before the body is parsed, an OpenAPI schema that
states the limits the server enforces, strict types, and no details for callers without the key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from graphwire.app.main import create_app
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings
from graphwire.retrieval.registry import mode_names

KEY = "edge-test-key"
LIMITS = {"max_question_chars": 60, "max_top_k": 12, "max_body_bytes": 2048}


def _settings(tmp: Path, **overrides: Any) -> Settings:
    return Settings(
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",  # nothing listens: a request that passes validation gets 503
        neo4j_password="unused-password",
        chroma_path=tmp / "chroma",
        graph_fill_mode="none",
        **{**LIMITS, **overrides},
    )


@pytest.fixture
def open_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path))) as client:
        yield client


@pytest.fixture
def keyed_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path, api_key=SecretStr(KEY)))) as client:
        yield client


def _code(response: Any) -> str:
    return str(response.json()["error"]["code"])


def test_a_body_over_the_limit_is_413_before_it_is_parsed(open_client: TestClient) -> None:
    padded = json.dumps({"question": "Who supplies Kestrel Motors?"}) + " " * 3000
    response = open_client.post("/v1/retrieve", content=padded, headers={"content-type": "application/json"})
    assert response.status_code == 413 and _code(response) == "payload_too_large"
    assert response.headers["x-request-id"]


def test_a_chunked_body_over_the_limit_is_413(open_client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"question": "' + b"a" * 1500
        yield b"b" * 1500 + b'"}'

    response = open_client.post("/v1/retrieve", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413 and _code(response) == "payload_too_large"


def test_malformed_json_without_the_key_is_401_not_422(keyed_client: TestClient) -> None:
    broken = {"content-type": "application/json"}
    response = keyed_client.post("/v1/retrieve", content=b'{"question": ', headers=broken)
    assert response.status_code == 401 and _code(response) == "unauthorized"
    with_key = keyed_client.post("/v1/retrieve", content=b'{"question": ', headers={**broken, "X-API-Key": KEY})
    assert with_key.status_code == 422


def test_an_oversized_body_without_the_key_is_401(keyed_client: TestClient) -> None:
    response = keyed_client.post("/v1/query", content=b"x" * 5000, headers={"content-type": "application/json"})
    assert response.status_code == 401


def _request_schema(client: TestClient, name: str) -> dict[str, Any]:
    schema: dict[str, Any] = client.get("/openapi.json").json()["components"]["schemas"][name]
    return schema


def test_the_openapi_limits_are_the_limits_the_server_enforces(open_client: TestClient) -> None:
    openapi = open_client.get("/openapi.json").json()
    for name, path in (("RetrieveRequest", "/v1/retrieve"), ("QueryRequest", "/v1/query")):
        props = openapi["components"]["schemas"][name]["properties"]
        max_chars, max_top_k = props["question"]["maxLength"], props["top_k"]["maximum"]
        max_bytes = openapi["paths"][path]["post"]["x-max-body-bytes"]
        assert (max_chars, max_top_k, max_bytes) == (60, 12, 2048)  # the settings of this app, not hard ceilings

        def status(body: dict[str, Any], pad: int = 0, target: str = path) -> int:
            content = json.dumps({**body, "answerer": "extractive"} if target == "/v1/query" else body)
            content += " " * pad
            response = open_client.post(target, content=content, headers={"content-type": "application/json"})
            return response.status_code

        assert status({"question": "q" * max_chars}) == 503  # valid: it reached the (stopped) graph
        assert status({"question": "q" * (max_chars + 1)}) == 422
        assert status({"question": "Who?", "top_k": max_top_k}) == 503
        assert status({"question": "Who?", "top_k": max_top_k + 1}) == 422
        base = len(
            json.dumps(
                {"question": "Who?"} if path == "/v1/retrieve" else {"question": "Who?", "answerer": "extractive"}
            )
        )
        assert status({"question": "Who?"}, pad=max_bytes - base) == 503
        assert status({"question": "Who?"}, pad=max_bytes - base + 1) == 413


@pytest.mark.parametrize("body", [{"top_k": True}, {"top_k": "5"}, {"top_k": 5.0}, {"include_context": "yes"},
                                  {"include_context": 1}, {"question": 42}, {"mode": "no-such-mode"}])  # fmt: skip
def test_types_are_strict(open_client: TestClient, body: dict[str, Any]) -> None:
    response = open_client.post("/v1/retrieve", json={"question": "Who supplies Kestrel Motors?", **body})
    assert response.status_code == 422 and _code(response) == "validation_error"


def test_mode_and_answerer_are_enums_from_the_registry_with_examples(open_client: TestClient) -> None:
    openapi = open_client.get("/openapi.json").json()
    schemas = openapi["components"]["schemas"]
    assert schemas["ModeName"]["enum"] == mode_names()
    assert schemas["AnswererName"]["enum"] == ["auto", "extractive", "llm"]
    assert schemas["RetrieveRequest"]["examples"][0]["mode"] in mode_names()
    assert schemas["QueryRequest"]["examples"][0]["answerer"] == "extractive"
    fields = schemas["RetrieveResponse"]["properties"]
    assert all(field.get("description") for field in fields.values())


def test_the_key_is_declared_in_openapi_only_when_one_is_configured(
    open_client: TestClient, keyed_client: TestClient
) -> None:
    assert "securitySchemes" not in open_client.get("/openapi.json").json().get("components", {})
    operation = open_client.get("/openapi.json").json()["paths"]["/v1/retrieve"]["post"]
    assert "security" not in operation
    keyed = keyed_client.get("/openapi.json").json()
    assert "APIKeyHeader" in keyed["components"]["securitySchemes"]
    assert keyed["paths"]["/v1/retrieve"]["post"]["security"]


def test_health_and_version_show_only_the_status_to_callers_without_the_key(keyed_client: TestClient) -> None:
    health = keyed_client.get("/health")
    assert health.status_code == 503 and health.json() == {"status": "unavailable"}
    assert keyed_client.get("/version").json() == {"name": "graphwire", "api": "v1"}
    full = keyed_client.get("/health", headers={"X-API-Key": KEY}).json()
    assert full["components"]["neo4j"]["status"] == "error"
    version = keyed_client.get("/version", headers={"Authorization": f"Bearer {KEY}"}).json()
    assert {"version", "python", "neo4j_driver", "schema_fingerprint"} <= set(version)


def test_without_a_key_configured_health_and_version_show_everything(open_client: TestClient) -> None:
    assert "components" in open_client.get("/health").json()
    assert "python" in open_client.get("/version").json()


@pytest.mark.parametrize(
    "query",
    [
        "offset=9223372036854775808",  # past the driver's 64-bit integers: was a 500 (OverflowError)
        "offset=9223372036854775000",  # SKIP + LIMIT past Neo4j's long: was a 500 ("long overflow")
        "offset=-1",
        "published_before=0",  # was read as 1970-01-01 (seconds since the epoch)
        "published_after=2026-02-30",
        "published_after=yesterday",
    ],
)
def test_document_list_parameters_out_of_range_are_422(open_client: TestClient, query: str) -> None:
    response = open_client.get(f"/v1/documents?{query}")
    assert response.status_code == 422, response.text
    assert _code(response) == "validation_error"


def test_the_document_list_publishes_its_bounds(open_client: TestClient) -> None:
    parameters = {
        p["name"]: p["schema"]
        for p in open_client.get("/openapi.json").json()["paths"]["/v1/documents"]["get"]["parameters"]
    }
    assert parameters["offset"]["maximum"] == 1_000_000_000
    published = parameters["published_after"]
    assert published["format"] == "date" and published["anyOf"][0]["pattern"] == r"^\d{4}-\d{2}-\d{2}$"


@pytest.mark.parametrize("content", ['"\\ud800"', '[{"type": "text", "text": "Who is \\ud800?"}]'])
def test_a_chat_message_that_is_not_valid_text_is_422_not_500(open_client: TestClient, content: str) -> None:
    body = '{"model": "graphwire-joint", "messages": [{"role": "user", "content": ' + content + "}]}"
    response = open_client.post("/v1/chat/completions", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert _code(response) == "validation_error"


def test_health_503_says_when_to_ask_again(open_client: TestClient) -> None:
    response = open_client.get("/health")  # nothing listens on the Neo4j port
    assert response.status_code == 503 and response.headers["retry-after"] == "5"


@pytest.mark.parametrize("stream", [0, 1, "yes", "true", None])
def test_stream_takes_only_a_json_boolean(open_client: TestClient, stream: object) -> None:
    response = open_client.post("/v1/query", json={"question": "Who supplies Kestrel Motors?", "stream": stream})
    assert response.status_code == 422 and _code(response) == "validation_error"


def test_the_question_limit_counts_what_is_asked_not_the_padding(open_client: TestClient) -> None:
    padded = " " * 100 + "Who supplies Kestrel Motors?" + "\n" * 100  # 228 characters, 28 once stripped (limit 60)
    response = open_client.post("/v1/retrieve", json={"question": padded})
    assert response.status_code == 503  # past validation: only the missing Neo4j stops it
    too_long = open_client.post("/v1/retrieve", json={"question": "x" * 61})
    assert too_long.status_code == 422 and "61 characters" in too_long.json()["error"]["message"]


def test_the_documents_body_schema_requires_at_least_one_document(open_client: TestClient) -> None:
    body = open_client.get("/openapi.json").json()["paths"]["/v1/documents"]["post"]["requestBody"]
    records, urls = body["content"]["application/json"]["schema"]["oneOf"]  # records, or URLs to fetch
    assert records["required"] == ["documents"] and records["properties"]["documents"]["minItems"] == 1
    assert urls["required"] == ["urls"] and urls["properties"]["urls"]["minItems"] == 1


def test_documents_posted_while_neo4j_is_down_are_a_503_to_retry_not_a_job_that_fails(open_client: TestClient) -> None:
    response = open_client.post("/v1/documents", json={"documents": [{"title": "T", "body": "B."}]})
    assert response.status_code == 503 and _code(response) == "neo4j_unavailable"  # was 202, then a failed job
    assert int(response.headers["retry-after"]) >= 1
    bad = open_client.post("/v1/documents", json={"documents": []})
    assert bad.status_code == 422  # what the body says wrong comes first
