"""The one door of export and import: every surface (HTTP, CLI, Python API) calls `GraphExchange`.

Export reads the graph without the writer lock (a write meanwhile may or may not be in it); the lines are counted
into the header before the first is given out, so a file always agrees with its header. Import checks the whole
file first (`validate.py`, nothing written when a line is wrong), then writes it in batches under the writer lock
(`WriteSession`: another writer is a `StoreBusyError` naming it, the store stamped and caches told at the end).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.write_session import WriteSession
from graphwire.ingest.exchange.csv_export import write_csv
from graphwire.ingest.exchange.models import Counts, Header, ImportReport, SchemaRef, Scope, dumps
from graphwire.ingest.exchange.reader import NodeRecord, read_graph, read_neighbourhood
from graphwire.ingest.exchange.validate import Validator
from graphwire.ingest.exchange.writer import BATCH, ImportWriter
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.schema.model import GraphSchema


class GraphExchange:
    """Export and import for one store under one schema. `on_change` tells this process's caches after an import."""

    def __init__(
        self,
        settings: Settings,
        graph: Callable[[], Graph],
        schema: GraphSchema,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.schema = schema
        self.on_change = on_change

    # export -----------------------------------------------------------------------------------------------
    def export_lines(self, entity: str | None = None, hops: int = 1) -> Iterator[str]:
        """The graph, or the neighbourhood of the entity key `entity` within `hops` hops, as JSON Lines (each without
        its newline): the header, the nodes, the relationships. Raises ExchangeError (404) for an unknown entity
        before the first line."""
        records = read_graph(self.graph()) if entity is None else read_neighbourhood(self.graph(), entity, hops)
        scope = Scope(entity=entity, hops=hops if entity is not None else None)
        with (
            tempfile.TemporaryFile("w+", encoding="utf-8") as nodes,
            tempfile.TemporaryFile("w+", encoding="utf-8") as rels,
        ):
            counts = _spool(records, nodes, rels)
            header = Header(schema=SchemaRef(name=self.schema.name, version=self.schema.version), scope=scope,
                            counts=counts)  # fmt: skip
            # the whole read is done before the first line is given: an unknown entity raises on the first next()
            yield dumps(header)
            for spooled in (nodes, rels):
                spooled.seek(0)
                for text in spooled:
                    yield text.rstrip("\n")

    def export_file(self, path: Path, entity: str | None = None, hops: int = 1) -> int:
        """Write the JSON Lines export to `path`; returns the number of lines."""
        count = 0
        with path.open("w", encoding="utf-8") as out:
            for text in self.export_lines(entity, hops):
                out.write(text + "\n")
                count += 1
        return count

    def export_csv(self, folder: Path, entity: str | None = None, hops: int = 1) -> list[str]:
        """Write the export as neo4j-admin CSV files under `folder` (with `import.sh`); returns the import command."""
        with tempfile.TemporaryDirectory() as scratch:
            jsonl = Path(scratch) / "graph.jsonl"
            self.export_file(jsonl, entity, hops)

            def lines() -> Iterator[dict[str, object]]:
                with jsonl.open(encoding="utf-8") as spooled:
                    next(spooled)  # the header
                    for text in spooled:
                        yield json.loads(text)

            return write_csv(lines, folder, self.settings.neo4j_database)

    # import -----------------------------------------------------------------------------------------------
    def import_lines(
        self,
        lines: Iterable[str],
        wait_s: float = 0.0,
        batch: int = BATCH,
        on_batch: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Check the file (ExchangeError with every problem by line, nothing written), then write it under the writer
        lock in batches of `batch` rows. A run killed part-way is finished by running the same import again."""
        with WriteSession(self.settings, self.graph, "graphwire import", on_change=self.on_change).open(wait_s):
            plan = Validator(self.schema, self.graph()).check(lines)
            writer = ImportWriter(self.graph(), ProvenanceCaps.of(self.schema, self.settings), batch, on_batch)
            return writer.write(plan)

    def import_file(self, path: Path, wait_s: float = 0.0) -> ImportReport:
        with path.open(encoding="utf-8") as lines:
            return self.import_lines(lines, wait_s)


def _spool(records: Iterable[NodeRecord], nodes: IO[str], rels: IO[str]) -> Counts:
    counts = Counts()
    for record in records:
        nodes.write(dumps(record.node) + "\n")
        counts.nodes[record.node.label] = counts.nodes.get(record.node.label, 0) + 1
        for rel in record.relationships:
            rels.write(dumps(rel) + "\n")
            counts.relationships[rel.type] = counts.relationships.get(rel.type, 0) + 1
    counts.nodes = dict(sorted(counts.nodes.items()))
    counts.relationships = dict(sorted(counts.relationships.items()))
    return counts
