"""Write a batch's rows with the `cypher/ingest/*` statements, in dependency order, in large UNWIND batches.

Each statement batch is its own transaction, retried on transient errors by the driver. Order matters for resuming:
documents, chunks, entities, mentions, relations, links; the document's content_hash (the commit marker) comes last.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.graph import Graph
from ingest.rows import GraphRows, Row


class GraphWriter:
    def __init__(self, graph: Graph, batch_size: int = 500) -> None:
        self.graph = graph
        self.batch_size = batch_size
        self.relationships_written = 0

    def write(self, rows: GraphRows) -> None:
        self._batches("ingest/merge_documents", rows.documents)
        self._batches("ingest/merge_chunks", rows.chunks)
        self._batches("ingest/merge_entities", rows.entities)
        self._batches("ingest/merge_mentions", rows.mentions)
        self._batches("ingest/merge_relations", rows.relations)
        self._batches("ingest/link_publications", rows.publications)
        self._batches("ingest/link_dates", rows.dates)
        self.relationships_written += len(rows.mentions) + len(rows.relations) + len(rows.chunks)

    def mark_done(self, rows: Sequence[Row]) -> None:
        self._batches("ingest/mark_documents_done", rows)

    def document_hashes(self, ids: Sequence[str]) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for start in range(0, len(ids), 5000):
            for r in self.graph.read("ingest/document_hashes", ids=list(ids[start : start + 5000])):
                out[r["id"]] = r["content_hash"]
        return out

    def remove_chunks(self, chunk_ids: Sequence[str]) -> tuple[int, int]:
        """Delete chunks with their provenance; returns (relationships removed, entities removed)."""
        if not chunk_ids:
            return 0, 0
        rels = self.graph.write("ingest/remove_chunk_provenance", chunk_ids=list(chunk_ids))
        ents = self.graph.write("ingest/delete_chunks", chunk_ids=list(chunk_ids))
        return (rels[0]["removed_relationships"] if rels else 0), (ents[0]["removed_entities"] if ents else 0)

    def stale_chunk_ids(self, document_id: str, keep: set[str]) -> list[str]:
        rows = self.graph.read("ingest/document_chunk_ids", document_id=document_id)
        return [r["id"] for r in rows if r["id"] not in keep]

    def delete_document(self, document_id: str) -> tuple[int, int, int]:
        """Remove a document, its chunks, and whatever only it supported; returns (chunks, relationships, entities)."""
        chunk_ids = self.stale_chunk_ids(document_id, keep=set())
        rels, ents = self.remove_chunks(chunk_ids)
        self.graph.write("ingest/delete_document", document_id=document_id)
        return len(chunk_ids), rels, ents

    def _batches(self, name: str, rows: Sequence[Row]) -> None:
        if rows:
            self.graph.write_batches(name, rows, batch_size=self.batch_size)
