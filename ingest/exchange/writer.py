"""Write a checked import file in bounded batches (one transaction each): nodes by kind (days, documents, chunks,
entities), then relationships. Every statement merges by key, so the import is resumable rather than atomic: a run
killed after some batches leaves those written, and running the same import again gives the store an uninterrupted
run gives. Entity facts with provenance go through `cypher/ingest/merge_relations.cypher`, the statement ingest
writes them with: chunk ids the store has already are not repeated, and capped types keep the cap rules of
ingest/provenance.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.ingest.exchange.models import IDENTITY, KINDS, ImportReport, NodeLine, RelationshipLine, kind_of
from graphwire.ingest.exchange.validate import Plan
from graphwire.ingest.provenance import ProvenanceCaps

BATCH = 1000
NODE_STATEMENTS = {"Date": "exchange/import_dates", "Document": "exchange/import_documents",
                   "Chunk": "exchange/import_chunks", "Entity": "exchange/import_entities"}  # fmt: skip
PROVENANCE = ("chunk_ids", "evidence", "extractor")  # the properties merge_relations writes


class ImportWriter:
    def __init__(self, graph: Graph, caps: ProvenanceCaps, batch: int = BATCH,
                 on_batch: Callable[[int], None] | None = None) -> None:  # fmt: skip
        """`on_batch(n)` is called after the n-th batch committed."""
        self.graph = graph
        self.caps = caps
        self.batch = batch
        self.on_batch = on_batch
        self.batches = 0

    def write(self, plan: Plan) -> ImportReport:
        report = ImportReport(lines=plan.lines)
        for kind in KINDS:
            rows = [_node_row(n) for n in plan.nodes if kind_of(n.label) == kind]
            self._batches(NODE_STATEMENTS[kind], rows)
        for node in plan.nodes:
            report.nodes[node.label] = report.nodes.get(node.label, 0) + 1
        facts = [r for r in plan.relationships if _is_fact(r)]
        self._batches("ingest/merge_relations", [self._fact_row(r) for r in facts])
        extra = [_extra_row(r) for r in facts]
        self._batches("exchange/set_relationship_properties", [row for row in extra if row["props"]])
        self._batches("exchange/import_relationships", [_rel_row(r) for r in plan.relationships if not _is_fact(r)])
        for rel in plan.relationships:
            report.relationships[rel.type] = report.relationships.get(rel.type, 0) + 1
        report.batches = self.batches
        return report

    def _batches(self, statement: str, rows: list[dict[str, Any]]) -> None:
        for start in range(0, len(rows), self.batch):
            self.graph.write(statement, rows=rows[start : start + self.batch])
            self.batches += 1
            if self.on_batch is not None:
                self.on_batch(self.batches)

    def _fact_row(self, rel: RelationshipLine) -> dict[str, Any]:
        props = rel.properties
        return {"source": rel.start.key, "target": rel.end.key, "type": rel.type, "chunk_ids": props["chunk_ids"],
                "evidence": props.get("evidence"), "extractor": props.get("extractor"),
                "cap": self.caps.cap_for(rel.type)}  # fmt: skip


def _is_fact(rel: RelationshipLine) -> bool:
    """An entity fact with a provenance list: its chunk ids are joined with the store's."""
    both = kind_of(rel.start.label) == kind_of(rel.end.label) == "Entity"
    return both and isinstance(rel.properties.get("chunk_ids"), list)


def _node_row(node: NodeLine) -> dict[str, Any]:
    # the store's own workspace, whatever a hand-made file says (import_*.cypher MERGE it, then `SET n += props`)
    props = {k: v for k, v in node.properties.items() if k != "workspace"} | {IDENTITY[kind_of(node.label)]: node.key}
    if kind_of(node.label) == "Entity":
        props["label"] = node.label
    return {"key": node.key, "label": node.label, "props": props}


def _extra_row(rel: RelationshipLine) -> dict[str, Any]:
    props = {k: v for k, v in rel.properties.items() if k not in PROVENANCE}
    return {"source": rel.start.key, "type": rel.type, "target": rel.end.key, "props": props}


def _rel_row(rel: RelationshipLine) -> dict[str, Any]:
    return {"start_kind": kind_of(rel.start.label), "start_key": rel.start.key, "type": rel.type,
            "end_kind": kind_of(rel.end.label), "end_key": rel.end.key, "props": rel.properties}  # fmt: skip
