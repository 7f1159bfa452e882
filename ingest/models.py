"""What extractors return for one chunk: entities and relationships under the schema."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ExtractedEntity(BaseModel):
    name: str = Field(min_length=1)
    label: str
    aliases: list[str] = Field(default_factory=list)
    mentions: int = 1
    title: bool = False  # the entity its document is about (ingest/entity_layer.py)
    sentences: list[int] = Field(default_factory=list)  # indices of the chunk's sentences that mention it


class ExtractedRelation(BaseModel):
    source: str
    source_label: str
    type: str
    target: str
    target_label: str
    evidence: str | None = None


class Extraction(BaseModel):
    """What one extractor found in one chunk. Names refer to `entities` by (name, label)."""

    chunk_id: str
    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
    extractor: str = "offline"
