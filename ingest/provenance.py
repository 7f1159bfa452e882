"""Capped provenance: which relationship types keep a bounded `chunk_ids` list, and how it is cut.

A type the schema marks `provenance: inferred` (REPORTED_BY: every entity a chunk mentions, to the chunk's
publication) is a hub whose list would grow with every chunk. Of the chunks that only imply it (no sentence: evidence
'') it keeps the `cap` smallest ids (plain string order); every chunk whose sentence states it stays. The list is kept
sorted, evidence parallel: a set that depends only on which chunks support it, not on the order documents were
ingested, updated or deleted in. Implied chunks can be found again in the graph (a chunk that mentions the subject in
a document the target published), stated ones could not, hence the difference.
`cypher/ingest/merge_relations.cypher` and `remove_chunk_provenance.cypher` keep the same invariant in the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphwire.core.settings import Settings
from graphwire.schema.model import GraphSchema


@dataclass(frozen=True)
class ProvenanceCaps:
    types: frozenset[str]  # relationship types whose chunk_ids are capped
    cap: int

    @classmethod
    def of(cls, schema: GraphSchema, settings: Settings) -> ProvenanceCaps:
        """The schema's capped types, capped at the settings' PROVENANCE_CAP."""
        return cls.capping(schema, settings.provenance_cap)

    @classmethod
    def capping(cls, schema: GraphSchema, cap: int) -> ProvenanceCaps:
        """The types the schema marks inferred, and its `reported_by_type`, which ingest/enrich.py infers under any
        schema."""
        return cls(schema.inferred_types | {schema.roles.reported_by_type}, cap)

    def cap_for(self, rel_type: str) -> int | None:
        return self.cap if rel_type in self.types else None

    def params(self) -> dict[str, Any]:
        """The parameters of `cypher/ingest/remove_chunk_provenance.cypher` besides the chunk ids."""
        return {"capped_types": sorted(self.types), "cap": self.cap}


def keep_capped(chunk_ids: Sequence[str], evidence: Sequence[str], cap: int) -> tuple[list[str], list[str]]:
    """Every stated entry (a non-empty evidence) and the `cap` smallest ids of the others, sorted by id, each with its
    evidence entry."""
    pairs = sorted(zip(chunk_ids, evidence, strict=True), key=lambda pair: pair[0])
    kept_implied = set([c for c, e in pairs if not e][:cap])  # pairs are sorted: the cap smallest
    kept = [(c, e) for c, e in pairs if e or c in kept_implied]
    return [c for c, _ in kept], [e for _, e in kept]
