"""The circuit breaker of the API's graph (core/clients/breaker.py, Graph.serving): fail fast while Neo4j is down,
probe, recover."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError, DatabaseUnavailable, ServiceUnavailable

from graphwire.core.clients.breaker import CircuitBreaker, CircuitOpenError
from graphwire.core.clients.graph import Graph
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _down() -> None:
    raise ServiceUnavailable("connection refused")


def test_an_unreachable_server_opens_the_breaker_and_later_calls_are_not_tried() -> None:
    clock = Clock()
    breaker = CircuitBreaker(open_s=3.0, clock=clock)
    with pytest.raises(ServiceUnavailable):
        breaker.call(_down)
    tried = []
    with pytest.raises(CircuitOpenError) as raised:
        breaker.call(lambda: tried.append(1))
    assert tried == [] and breaker.state == "open"
    assert raised.value.retry_after_s == pytest.approx(3.0)
    assert isinstance(raised.value, ServiceUnavailable)  # the API's 503 handler covers it


def test_after_the_open_period_one_probe_goes_through_and_success_closes_the_breaker() -> None:
    clock = Clock()
    breaker = CircuitBreaker(open_s=3.0, clock=clock)
    with pytest.raises(ServiceUnavailable):
        breaker.call(_down)
    clock.now += 3.5
    assert breaker.state == "half_open"
    assert breaker.call(lambda: "back") == "back"
    assert breaker.state == "closed"
    assert breaker.call(lambda: 1) == 1


def test_a_failed_probe_opens_the_breaker_again() -> None:
    clock = Clock()
    breaker = CircuitBreaker(open_s=3.0, clock=clock)
    with pytest.raises(ServiceUnavailable):
        breaker.call(_down)
    clock.now += 3.5
    with pytest.raises(ServiceUnavailable):
        breaker.call(_down)
    with pytest.raises(CircuitOpenError):
        breaker.call(lambda: 1)


def test_an_answer_from_the_server_even_an_error_closes_the_breaker() -> None:
    clock = Clock()
    breaker = CircuitBreaker(open_s=3.0, clock=clock)
    with pytest.raises(ServiceUnavailable):
        breaker.call(_down)
    clock.now += 3.5

    def cypher_error() -> None:
        raise ClientError("syntax error")

    with pytest.raises(ClientError):
        breaker.call(cypher_error)
    assert breaker.state == "closed"


def test_the_serving_graph_fails_fast_against_a_port_nothing_listens_on(tmp_path: object) -> None:
    settings = Settings(neo4j_uri=f"bolt://127.0.0.1:{free_port()}", neo4j_password="unused-password")
    graph = Graph.serving(settings)
    try:
        with pytest.raises(ServiceUnavailable):
            graph.read("retrieve/entity_version")
        assert graph.breaker is not None and graph.breaker.state == "open"
        with pytest.raises(CircuitOpenError):
            graph.read("retrieve/entity_version")
    finally:
        graph.close()


def test_a_database_that_is_shutting_down_opens_the_breaker_too() -> None:
    breaker = CircuitBreaker(open_s=3.0, clock=Clock())

    def shutting_down() -> None:
        raise DatabaseUnavailable("Timeout waiting for database to become available")

    with pytest.raises(DatabaseUnavailable):
        breaker.call(shutting_down)
    assert breaker.state == "open"
