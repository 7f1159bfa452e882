"""`graphwire db check` (`--repair`): compare the graph with itself and with the vector store, fix what can be fixed.

Registered on the `db` group by cli/db_cmd.py; the checks and repairs are `ingest/consistency.py`.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from graphwire.cli.common import NEO4J_ERRORS, fail, neo4j_error_line, open_graph_or_exit
from graphwire.core.schema import configured_schema
from graphwire.core.settings import Settings, get_settings
from graphwire.core.stores.store_lock import StoreBusyError
from graphwire.core.stores.write_session import WriteSession
from graphwire.ingest.consistency import StoreCheck, VectorStore, check_store, repair_store
from graphwire.ingest.provenance import ProvenanceCaps

console = Console()


def check(
    repair: Annotated[bool, typer.Option(help="fix what can be fixed from the stores themselves")] = False,
    vectors: Annotated[bool, typer.Option(help="compare the vector store with the graph too")] = True,
    wait: Annotated[float, typer.Option(help="with --repair: seconds to wait while another process writes")] = 0.0,
) -> None:
    """Compare the graph with itself and with the vector store: chunk ids both ways, orphan entities, relationships
    without provenance, chunks without a document, unfinished deletes and documents, curation rules that no longer
    apply. Exit 0 when consistent (after --repair: when nothing is left), 1 when problems remain."""
    settings = get_settings()
    schema = configured_schema(settings)
    caps = ProvenanceCaps.of(schema, settings)
    graph = open_graph_or_exit(settings)
    session = WriteSession(settings, lambda: graph, "graphwire db check --repair")
    try:
        store = _vector_store(settings) if vectors else None
        found = check_store(graph, store, caps)
        _print_check(found)
        if repair and not found.ok:
            try:
                session.open(wait_s=wait)
            except StoreBusyError as exc:
                raise fail(str(exc)) from None
            repaired = repair_store(graph, store, check_store(graph, store, caps), caps, schema.roles)
            console.print(
                "repaired: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in repaired.model_dump().items())
            )
            found = check_store(graph, store, caps)
            _print_check(found)
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    finally:
        session.close()
        graph.close()
    if not found.ok:
        raise typer.Exit(1)


def _vector_store(settings: Settings) -> VectorStore:
    from graphwire.core.clients.chunk_store import ChunkStore

    return ChunkStore.from_settings(settings)


def _print_check(found: StoreCheck) -> None:
    vectors = "not checked" if found.vector_chunks is None else str(found.vector_chunks)
    console.print(f"graph chunks {found.graph_chunks}, vectors {vectors}")
    problems = found.problems()
    if not problems:
        console.print("[green]consistent[/]: the graph and the vector store agree")
        return
    for what, count in problems.items():
        console.print(f"[red]{count}[/] {what}")
    for rule in found.stale_rules:  # each with the edit that made it: `graphwire edit undo` takes its id
        console.print(f"  {rule}", markup=False, highlight=False)
