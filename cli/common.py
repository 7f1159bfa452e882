"""What the CLI commands share: opening Neo4j, and one-line messages instead of driver tracebacks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from neo4j.exceptions import AuthError, DatabaseUnavailable, ServiceUnavailable, SessionExpired

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import move_into_default
from graphwire.core.stores.store_lock import StoreBusyError

# DatabaseUnavailable: a server that is shutting down (or starting) still answers, but runs no transaction
NEO4J_ERRORS = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, AuthError)


def neo4j_error_line(settings: Settings, exc: BaseException) -> str:
    """What is wrong with Neo4j and how to fix it, in one line (the driver's messages span several)."""
    if isinstance(exc, AuthError):
        return (
            f"Neo4j at {settings.neo4j_uri} rejected the credentials: set NEO4J_USER and NEO4J_PASSWORD "
            "(unset NEO4J_PASSWORD to use the password file of `graphwire neo4j start`)"
        )
    return (
        f"Neo4j is not reachable at {settings.neo4j_uri}: start it with `graphwire neo4j start`, "
        "or point NEO4J_URI at a running server"
    )


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print `error: message` as one line on stderr; raise the returned Exit."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def open_graph_or_exit(settings: Settings) -> Graph:
    """The configured graph, reached once; a missing password, a bad URI or a server that does not answer ends the
    command with one line naming the fix (exit 1), instead of seconds of driver retries and a traceback."""
    try:
        graph = Graph.from_settings(settings)
    except RuntimeError as exc:
        raise fail(str(exc)) from None
    try:
        graph.ping()
        move_into_default(graph)  # a store written before workspaces: no statement would see its nodes
    except NEO4J_ERRORS as exc:
        graph.close()
        raise fail(neo4j_error_line(settings, exc)) from None
    return graph


@contextmanager
def writing_graph(settings: Settings) -> Iterator[Graph]:
    """The configured graph for a command that writes (`open_graph_or_exit`), closed after; another writer holding
    the store, or Neo4j going away, ends the command with one line (exit 1)."""
    graph = open_graph_or_exit(settings)
    try:
        yield graph
    except StoreBusyError as exc:
        raise fail(str(exc)) from None
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        graph.close()


def check_top_k(top_k: int, settings: Settings) -> None:
    """One bound for every surface: the CLI refuses what the API would (MAX_TOP_K)."""
    if top_k > settings.max_top_k:
        raise fail(f"--top-k {top_k} is above MAX_TOP_K={settings.max_top_k}, the bound the API enforces too; set "
                   "MAX_TOP_K to allow more")  # fmt: skip
