"""Work a run records in the graph before doing it, so that a killed run is finished by the next one.

- Entities whose chunks were deleted carry `orphan_check` (set in the transaction that deletes the chunks);
  `sweep_orphans` deletes those nothing mentions any more and clears the mark on the others. Every ingest sweeps at its
  start (what a killed run left) and at its end; a delete after each document.
- A delete starts by marking its document `deleting` (which also clears its commit marker); `delete_document` then
  removes the vectors, the chunks with their provenance, the document and what only it supported, the mark going
  last with the document. `finish_pending_deletes` redoes the deletes a killed run left marked.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from graphwire.ingest.writer import GraphWriter

SWEEP_BATCH = 10_000


class DocumentVectors(Protocol):
    def delete_document(self, document_id: str) -> Any: ...


class Deleted(BaseModel):
    """What deleting one document removed."""

    id: str
    title: str | None = None
    chunks: int = 0
    relationships: int = 0
    entities: int = 0


def sweep_orphans(writer: GraphWriter) -> int:
    """Delete the marked entities nothing mentions or reports by any more; returns how many."""
    removed = 0
    while True:
        rows = writer.graph.write("ingest/sweep_orphan_entities", limit=SWEEP_BATCH)
        seen, gone = (int(rows[0]["seen"]), int(rows[0]["removed"])) if rows else (0, 0)
        removed += gone
        if seen < SWEEP_BATCH:
            return removed


def delete_document(
    writer: GraphWriter, document_id: str, title: str | None, vectors: DocumentVectors | None
) -> Deleted:
    """Remove one document and whatever only it supported, in an order a crash at any step leaves resumable."""
    writer.graph.write("ingest/mark_document_deleting", document_id=document_id)
    if vectors is not None:
        vectors.delete_document(document_id)
    chunk_ids = writer.stale_chunk_ids(document_id, keep=set())
    relationships = writer.remove_chunks(chunk_ids)
    writer.graph.write("ingest/delete_document", document_id=document_id)
    entities = sweep_orphans(writer)
    return Deleted(id=document_id, title=title, chunks=len(chunk_ids), relationships=relationships, entities=entities)


def finish_pending_deletes(writer: GraphWriter, vectors: DocumentVectors | None) -> list[Deleted]:
    """Finish the deletes a killed run began, then sweep the orphans it left."""
    done = [delete_document(writer, r["id"], r["title"], vectors) for r in writer.graph.read("ingest/pending_deletes")]
    sweep_orphans(writer)
    return done
