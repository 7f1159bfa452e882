"""The API skeleton without a Neo4j: request ids, the error shape, the API key, 503s, /version, JSON logs."""

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter
from fastapi.testclient import TestClient
from neo4j.exceptions import ServiceUnavailable

from graphwire.app.deps import GraphDep
from graphwire.app.errors import ApiError
from graphwire.app.main import create_app
from graphwire.core.logging import JsonFormatter, RequestIdFilter, request_id_var
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

API_KEY = "test-key-0123456789"


def dummy_router() -> APIRouter:
    router = APIRouter()

    @router.get("/dummy")
    def dummy(n: int = 1) -> dict[str, int]:
        return {"n": n}

    @router.get("/teapot")
    def teapot() -> None:
        raise ApiError(418, "teapot", "short and stout", {"spout": True})

    @router.get("/neo4j-down")
    def neo4j_down() -> None:
        raise ServiceUnavailable("Couldn't connect to 127.0.0.1:1")

    @router.get("/crash")
    def crash() -> None:
        raise RuntimeError("boom")

    @router.get("/needs-graph")
    def needs_graph(graph: GraphDep) -> dict[str, str]:
        return {"database": graph.database}

    return router


def settings_for(tmp_path: Path, **values: Any) -> Settings:
    # Nothing listens on this port: Neo4j is "down" for every test here.
    values.setdefault("neo4j_password", "not-used-here")
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",
        neo4j_home=tmp_path / "neo4j",
        chroma_path=tmp_path / "chroma",
        **values,
    )


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(settings_for(tmp_path_factory.mktemp("app")), extra_v1_routers=[dummy_router()])
    with TestClient(app) as test_client:
        yield test_client


def test_request_id_is_echoed_or_generated(client: TestClient) -> None:
    assert client.get("/v1/dummy", headers={"X-Request-ID": "trace-42.a:b"}).headers["x-request-id"] == "trace-42.a:b"
    generated = client.get("/v1/dummy").headers["x-request-id"]
    assert len(generated) == 32 and int(generated, 16) >= 0
    unsafe = client.get("/v1/dummy", headers={"X-Request-ID": "x" * 200}).headers["x-request-id"]
    assert unsafe != "x" * 200 and len(unsafe) == 32


def test_errors_share_one_shape_with_the_request_id(client: TestClient) -> None:
    response = client.get("/v1/teapot", headers={"X-Request-ID": "rid-1"})
    assert response.status_code == 418
    assert response.json() == {
        "error": {"code": "teapot", "message": "short and stout", "request_id": "rid-1", "details": {"spout": True}}
    }
    missing = client.get("/v1/no-such-route").json()["error"]
    assert missing["code"] == "not_found" and missing["request_id"]
    invalid = client.get("/v1/dummy", params={"n": "seven"})
    assert invalid.status_code == 422
    assert invalid.json()["error"]["code"] == "validation_error"
    assert invalid.json()["error"]["details"][0]["loc"] == ["query", "n"]


def test_neo4j_unavailable_is_a_503_with_a_message(client: TestClient) -> None:
    response = client.get("/v1/neo4j-down")
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "neo4j_unavailable" and "graphwire neo4j status" in error["message"]
    assert "127.0.0.1:1" in error["details"]["reason"]


def test_unhandled_errors_are_a_500_without_internals(client: TestClient) -> None:
    response = client.get("/v1/crash", headers={"X-Request-ID": "rid-crash"})
    assert response.status_code == 500
    assert response.headers["x-request-id"] == "rid-crash"
    assert response.json() == {
        "error": {"code": "internal_error", "message": "internal server error", "request_id": "rid-crash"}
    }


def test_health_is_503_with_the_reason_when_neo4j_is_down(client: TestClient) -> None:
    response = client.get("/health")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["components"]["neo4j"]["status"] == "error"
    assert "Couldn't connect" in body["components"]["neo4j"]["reason"]  # the driver's reason, also behind the breaker
    assert body["components"]["chroma"]["status"] == "ok"


def test_a_graph_dependency_answers_503_while_neo4j_is_down(client: TestClient) -> None:
    response = client.get("/v1/needs-graph")
    assert response.status_code == 503 and response.json()["error"]["code"] == "neo4j_unavailable"


def test_version(client: TestClient) -> None:
    body = client.get("/version").json()
    assert body["name"] == "graphwire" and body["api"] == "v1"
    assert body["schema_fingerprint"].startswith("news-")


def test_api_key_is_enforced_on_every_v1_route(tmp_path: Path) -> None:
    app = create_app(settings_for(tmp_path, api_key=API_KEY), extra_v1_routers=[dummy_router()])
    with TestClient(app) as client:
        for headers in ({}, {"X-API-Key": "wrong"}):
            response = client.get("/v1/dummy", headers=headers)
            assert response.status_code == 401
            assert response.json()["error"]["code"] == "unauthorized"
        assert client.get("/v1/dummy", headers={"X-API-Key": API_KEY}).json() == {"n": 1}
        v1_paths = [path for path in client.get("/openapi.json").json()["paths"] if path.startswith("/v1/")]
        assert len(v1_paths) > 5  # the feature routers and the dummy ones
        for path in v1_paths:  # every /v1 route refuses a request without the key (before validating input)
            for method in ("get", "post"):
                status = getattr(client, method)(path.replace("{", "").replace("}", "")).status_code
                assert status in (401, 405), f"{method.upper()} {path} answered {status} without an API key"
        assert client.get("/health").status_code != 401  # probes need no key
        assert client.get("/version").status_code == 200


def test_missing_local_password_is_a_503_naming_the_fix(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, neo4j_password=None)
    with TestClient(create_app(settings, extra_v1_routers=[dummy_router()])) as client:
        response = client.get("/v1/needs-graph")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "neo4j_not_configured"
    assert "NEO4J_PASSWORD" in response.json()["error"]["message"]


def test_json_log_lines_carry_the_request_id_and_extra_fields() -> None:
    record = logging.LogRecord("graphwire.test", logging.INFO, __file__, 1, "hello %s", ("world",), None)
    record.duration_ms = 12.5
    token = request_id_var.set("rid-log")
    try:
        RequestIdFilter().filter(record)
    finally:
        request_id_var.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "hello world" and line["level"] == "INFO"
    assert line["request_id"] == "rid-log" and line["duration_ms"] == 12.5
