"""Write a batch's rows with the `cypher/ingest/*` statements, in dependency order, in large UNWIND batches.

Each statement batch is its own transaction, retried on transient errors by the driver. Order matters for resuming:
days and entities, documents, chunks, mentions, relations; the document's content_hash (the commit marker) comes
last. Rows of what the graph does not have yet (documents new to it and their chunks and mentions, relationships the
run has not seen) use CREATE statements: no existing relationships to look through, which is what makes MERGE of a
relationship slow next to a busy entity. The rest uses MERGE.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import default_of
from graphwire.core.stores.store_version import bump
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.ingest.rows import GraphRows, Row


class GraphWriter:
    def __init__(
        self,
        graph: Graph,
        batch_size: int = default_of("ingest_batch_size"),
        threads: int = default_of("ingest_write_threads"),
        *,
        provenance: ProvenanceCaps,
    ) -> None:
        """`provenance`: the relationship types whose chunk ids are capped, and the cap."""
        self.graph = graph
        self.batch_size = batch_size
        self.threads = threads
        self.provenance = provenance

    def write(self, rows: GraphRows) -> None:
        self._batches("ingest/merge_days", rows.days)
        self._batches("ingest/merge_entities", rows.entities)
        self._batches("ingest/create_documents", rows.documents.new, concurrent=True)
        self._batches("ingest/merge_documents", rows.documents.stored)
        self._batches("ingest/create_chunks", rows.chunks.new, concurrent=True)
        self._batches("ingest/merge_chunks", rows.chunks.stored)
        self._batches("ingest/create_mentions", rows.mentions.new, concurrent=True)
        self._batches("ingest/merge_mentions", rows.mentions.stored)
        self._batches("ingest/create_relations", rows.relations.new, concurrent=True)
        self._batches("ingest/merge_relations", rows.relations.stored)

    def mark_done(self, rows: Sequence[Row]) -> None:
        """Set the commit markers, then the store's version stamp (readers in other processes see the batch)."""
        self._batches("ingest/mark_documents_done", rows, concurrent=True)
        bump(self.graph)

    def document_hashes(self, ids: Sequence[str]) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for start in range(0, len(ids), 5000):
            for r in self.graph.read("ingest/document_hashes", ids=list(ids[start : start + 5000])):
                out[r["id"]] = r["content_hash"]
        return out

    def document_extractors(self, ids: Sequence[str]) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for start in range(0, len(ids), 5000):
            for r in self.graph.read("ingest/document_extractors", ids=list(ids[start : start + 5000])):
                out[r["id"]] = r["extractor"]
        return out

    def remove_chunks(self, chunk_ids: Sequence[str]) -> int:
        """Delete chunks with their provenance; returns the relationships removed. The entities the chunks mentioned
        are marked for `ingest.pending.sweep_orphans` in the same transaction as the deletion, so a crash after it
        loses no orphan. Full capped relationships are refilled from the chunks that still support them, in the
        transaction that takes the ids out (a crash in between would leave them short for good)."""
        if not chunk_ids:
            return 0
        rels = self.graph.write("ingest/remove_chunk_provenance", chunk_ids=list(chunk_ids), **self.provenance.params())
        self.graph.write("ingest/delete_chunks", chunk_ids=list(chunk_ids))
        return int(rels[0]["removed_relationships"]) if rels else 0

    def stale_chunk_ids(self, document_id: str, keep: set[str]) -> list[str]:
        rows = self.graph.read("ingest/document_chunk_ids", document_id=document_id)
        return [r["id"] for r in rows if r["id"] not in keep]

    def _batches(self, name: str, rows: Sequence[Row], concurrent: bool = False) -> None:
        """`concurrent`: CREATE statements and the commit marker run `threads` transactions at a time (nothing two of
        their batches could both create); MERGE statements, whose locks two batches could deadlock on, one at a time.
        A deadlock all the same is a transient error: the driver retries that batch."""
        if rows:
            self.graph.write_batches(name, rows, self.batch_size, self.threads if concurrent else 1)
