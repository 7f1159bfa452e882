"""What an ingestion run did: the numbers behind the closing summary table."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphwire.ingest.loaders import LoadError


class FailureNote(BaseModel):
    chunk_id: str
    document_id: str
    reason: str


class IngestReport(BaseModel):
    documents_seen: int = 0
    documents_written: int = 0
    documents_updated: int = 0
    documents_unchanged: int = 0
    documents_resumed: int = 0  # skipped because the state record says a previous run finished them
    chunks_written: int = 0
    chunks_removed: int = 0
    relationships_removed: int = 0
    entities_removed: int = 0
    deletes_finished: int = 0  # deletes a killed run left unfinished, finished at the start of this one
    vectors_restored: int = 0  # vectors of unchanged documents the vector store had lost, re-embedded from the graph
    duplicate_ids: list[str] = Field(default_factory=list)  # document ids given more than once (the first was kept)
    extracted_entities: int = 0
    extracted_relations: int = 0
    pruned: dict[str, int] = Field(default_factory=dict)
    # the LLM extractor's own counts: failed chunks, retried calls, repaired and truncated replies, dropped by reason
    extraction: dict[str, int] = Field(default_factory=dict)
    documents_reextracted: int = 0  # unchanged documents extracted again because another extractor wrote them
    entities_read: int = 0  # stored entities the run read to resolve and link its names (ingest/entity_lookup.py)
    merged: int = 0
    fuzzy_merged: int = 0
    failures: list[FailureNote] = Field(default_factory=list)
    load_errors: list[LoadError] = Field(default_factory=list)
    elapsed_s: float = 0.0
    extract_s: float = 0.0
    write_s: float = 0.0
    vector_s: float = 0.0
    mentions_linked: int = 0  # MENTIONS the dictionary linker added (ingest/linking.py)
    facts_restored: int = 0  # facts people added, written back after their chunk came back (ingest/curation/rules.py)
    link_s: float = 0.0
    llm_calls: int | None = None
    llm_tokens: int | None = None
    graph_counts: dict[str, int] = Field(default_factory=dict)
    entities_per_label: dict[str, int] = Field(default_factory=dict)
    relationships_per_type: dict[str, int] = Field(default_factory=dict)

    @property
    def chunks_per_s(self) -> float:
        return self.chunks_written / self.elapsed_s if self.elapsed_s else 0.0
