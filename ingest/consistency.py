"""`graphwire db check` / `--repair`: does the graph agree with itself and with the vector store, and what can be fixed.

Checked: chunk ids both ways (graph chunks without a vector, vectors without a graph chunk), entities nothing mentions
or reports by, entities without the lookup properties ingest finds them by, relationships whose provenance is empty or
names a missing chunk, capped provenance lists longer than PROVENANCE_CAP, chunks without a document, deletes a killed
run left pending, documents without a commit marker, curation rules that no longer apply (an entity they name is
gone: ingest/curation/rules.py). Repaired: missing vectors re-embedded from the graph's chunk
text, stray vectors deleted, orphans and unsupported relationships removed (full capped provenance lists refilled from
the chunks that still imply them, as a delete refills them), lists over the cap cut to it, lookup properties filled
in, detached chunks removed with their provenance, pending deletes finished, rules that no longer apply dropped (the
audit record of their edit stays). Unfinished documents need their input:
the report says to re-run the ingest.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, Field

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Chunk
from graphwire.core.stores.store_version import bump
from graphwire.ingest.curation.rules import CurationRules, stale
from graphwire.ingest.entity_lookup import missing_lookup, repair_lookup
from graphwire.ingest.pending import finish_pending_deletes, sweep_orphans
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.ingest.writer import GraphWriter
from graphwire.schema.roles import SchemaRoles

PAGE = 5000
SHOWN = 1000  # at most this many keys/ids listed per finding


class ChunkSink(Protocol):
    """The vector store side of ingestion (core.chunk_store.ChunkStore): the same chunks the graph gets."""

    def upsert(self, chunks: Sequence[Chunk]) -> Any: ...

    def delete_document(self, document_id: str) -> Any: ...

    def missing(self, chunk_ids: Sequence[str]) -> list[str]:
        """Those of the ids the store has no vector for."""
        ...

    def count(self) -> int: ...


class VectorStore(ChunkSink, Protocol):
    """What `db check` needs besides: every id, and deletion by id."""

    def ids(self) -> list[str]: ...

    def delete_ids(self, ids: Sequence[str]) -> Any: ...

    def chunks_without_sentences(self) -> list[Chunk]: ...

    def fill_sentences(self) -> int: ...


class StoreCheck(BaseModel):
    graph_chunks: int
    vector_chunks: int | None = None  # None: no vector store checked
    missing_vectors: list[str] = Field(default_factory=list)  # graph chunk ids the vector store lacks
    stray_vectors: list[str] = Field(default_factory=list)  # vector ids with no graph chunk
    missing_sentences: list[str] = Field(default_factory=list)  # stored chunk ids without their sentence vectors
    orphan_entities: list[str] = Field(default_factory=list)
    entities_without_lookup: list[str] = Field(default_factory=list)  # invisible to ingest's lookups
    unsupported_relationships: list[str] = Field(default_factory=list)  # "source -TYPE-> target"
    overfull_provenance: list[str] = Field(default_factory=list)  # "source -TYPE-> target"
    detached_chunks: list[str] = Field(default_factory=list)
    pending_deletes: list[str] = Field(default_factory=list)
    unfinished_documents: list[str] = Field(default_factory=list)
    stale_rules: list[str] = Field(default_factory=list)  # "<rule> (edit <id>): <why it no longer applies>"

    @property
    def ok(self) -> bool:
        return not self.problems()

    def problems(self) -> dict[str, int]:
        """Each kind of disagreement found, with its count."""
        found = {
            "graph chunks without a vector": len(self.missing_vectors),
            "vectors without a graph chunk": len(self.stray_vectors),
            "chunks without sentence vectors (or `graphwire embeddings sentences`)": len(self.missing_sentences),
            "entities nothing mentions": len(self.orphan_entities),
            "entities without lookup keys": len(self.entities_without_lookup),
            "relationships without provenance": len(self.unsupported_relationships),
            "provenance lists over PROVENANCE_CAP": len(self.overfull_provenance),
            "chunks without a document": len(self.detached_chunks),
            "deletes left unfinished": len(self.pending_deletes),
            "documents without a commit marker (re-run the ingest)": len(self.unfinished_documents),
            "curation rules that no longer apply (undo their edit, or --repair drops them)": len(self.stale_rules),
        }
        return {what: n for what, n in found.items() if n}


class RepairReport(BaseModel):
    vectors_embedded: int = 0
    sentences_embedded: int = 0  # chunks whose sentence vectors were written
    vectors_deleted: int = 0
    entities_removed: int = 0
    lookup_keys_filled: int = 0
    relationships_repaired: int = 0
    relationships_deleted: int = 0
    provenance_lists_trimmed: int = 0
    chunks_removed: int = 0
    deletes_finished: int = 0
    rules_dropped: int = 0


def graph_chunk_ids(graph: Graph) -> list[str]:
    return list(_paged_chunk_ids(graph))


def _paged_chunk_ids(graph: Graph) -> Iterator[str]:
    after = ""
    while True:
        rows = graph.read("store/chunk_ids", after=after, limit=PAGE)
        yield from (str(r["id"]) for r in rows)
        if len(rows) < PAGE:
            return
        after = str(rows[-1]["id"])


def check_store(graph: Graph, vectors: VectorStore | None, caps: ProvenanceCaps) -> StoreCheck:
    """`caps`: the capped provenance types and their cap."""
    in_graph = graph_chunk_ids(graph)
    check = StoreCheck(
        graph_chunks=len(in_graph),
        orphan_entities=[r["key"] for r in graph.read("store/orphan_entities", limit=SHOWN)],
        entities_without_lookup=missing_lookup(graph, SHOWN),
        unsupported_relationships=_relationships(graph.read("store/unsupported_relationships", limit=SHOWN)),
        overfull_provenance=_relationships(graph.read("store/overfull_provenance", limit=SHOWN, **caps.params())),
        detached_chunks=[r["id"] for r in graph.read("store/detached_chunks", limit=SHOWN)],
        pending_deletes=[r["id"] for r in graph.read("ingest/pending_deletes")],
        unfinished_documents=[r["id"] for r in graph.read("store/unfinished_documents", limit=SHOWN)],
        stale_rules=[f"{rule.describe()}: {why}" for rule, why in stale(graph, CurationRules.load(graph))][:SHOWN],
    )
    if vectors is not None:
        in_store = set(vectors.ids())
        graph_set = set(in_graph)
        check.vector_chunks = len(in_store)
        check.missing_vectors = sorted(graph_set - in_store)
        check.stray_vectors = sorted(in_store - graph_set)
        check.missing_sentences = sorted(chunk.id for chunk in vectors.chunks_without_sentences())
    return check


def _relationships(rows: list[dict[str, Any]]) -> list[str]:
    """Relationship rows (source, type, target) as the report lists them: "source -TYPE-> target"."""
    return [f"{r['source']} -{r['type']}-> {r['target']}" for r in rows]


def chunks_from_graph(graph: Graph, ids: Sequence[str]) -> list[Chunk]:
    """The graph's records of these chunks, as the vector store stores them."""
    chunks: list[Chunk] = []
    for start in range(0, len(ids), PAGE):
        rows = graph.read("store/chunks_by_ids", ids=list(ids[start : start + PAGE]))
        chunks.extend(Chunk.model_validate({k: _plain(v) for k, v in r.items()}) for r in rows)
    return chunks


def _plain(value: Any) -> Any:
    """Neo4j dates come back as neo4j.time.Date; pydantic wants a datetime.date."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def missing_vectors_of(graph: Graph, vectors: ChunkSink, document_ids: Sequence[str]) -> list[str]:
    """The graph chunk ids of these documents that the vector store has no vector for. A vector store holding as many
    chunks as the graph is taken at its word (two count lookups; `check_store` compares every id)."""
    rows = graph.read("store/count_chunks")
    if not document_ids or vectors.count() >= (int(rows[0]["chunks"]) if rows else 0):
        return []
    ids: list[str] = []
    for start in range(0, len(document_ids), PAGE):
        rows = graph.read("store/document_chunk_ids", document_ids=list(document_ids[start : start + PAGE]))
        ids.extend(str(r["id"]) for r in rows)
    return vectors.missing(ids) if ids else []


def restore_vectors(graph: Graph, vectors: ChunkSink, ids: Sequence[str]) -> int:
    """Re-embed the given graph chunks into the vector store; returns how many were written."""
    if not ids:
        return 0
    chunks = chunks_from_graph(graph, ids)
    vectors.upsert(chunks)
    return len(chunks)


def repair_store(
    graph: Graph, vectors: VectorStore | None, check: StoreCheck, caps: ProvenanceCaps, roles: SchemaRoles
) -> RepairReport:
    """Fix what `check` found that can be fixed from the stores themselves (the caller holds the writer lock).
    `caps`: the capped provenance types; `roles`: the schema's, for the entities' lookup keys."""
    writer = GraphWriter(graph, provenance=caps)
    report = RepairReport(deletes_finished=len(finish_pending_deletes(writer, vectors)))
    if check.detached_chunks:
        detached = [r["id"] for r in graph.read("store/detached_chunks", limit=10**9)]
        writer.remove_chunks(detached)
        report.chunks_removed = len(detached)
    rows = graph.write("store/repair_relationship_provenance", **writer.provenance.params())
    if rows:
        report.relationships_repaired = int(rows[0]["repaired"])
        report.relationships_deleted = int(rows[0]["deleted"])
    if check.overfull_provenance:
        rows = graph.write("store/trim_provenance", **writer.provenance.params())
        report.provenance_lists_trimmed = int(rows[0]["trimmed"]) if rows else 0
    graph.write("store/mark_orphan_entities")
    report.entities_removed = sweep_orphans(writer)
    report.lookup_keys_filled = repair_lookup(graph, roles)
    if check.stale_rules:
        dropped = [rule.id for rule, _ in stale(graph, CurationRules.load(graph))]
        rows = graph.write("curation/delete_rules", ids=dropped)
        report.rules_dropped = int(rows[0]["deleted"]) if rows else 0
    if vectors is not None:
        fresh = check_store(graph, vectors, caps)
        if fresh.stray_vectors:
            vectors.delete_ids(fresh.stray_vectors)
            report.vectors_deleted = len(fresh.stray_vectors)
        if fresh.missing_vectors:
            report.vectors_embedded = restore_vectors(graph, vectors, fresh.missing_vectors)
        if fresh.missing_sentences:
            report.sentences_embedded = vectors.fill_sentences()
    bump(graph)
    return report
