"""Keep extractions inside the schema: drop unknown labels, unknown types and disallowed patterns, counting why."""

from __future__ import annotations

from collections import Counter

from graphwire.ingest.models import ExtractedEntity, Extraction
from graphwire.schema.model import GraphSchema


def prune(extraction: Extraction, schema: GraphSchema, dropped: Counter[str]) -> Extraction:
    """A copy of `extraction` with only schema-conformant entities and relations; `dropped` counts the reasons.

    A relation whose endpoint is missing from the entity list (LLM output does this) adds the endpoint instead of
    being dropped, so every relation's endpoints are mentioned by its chunk.
    """
    labels = set(schema.labels)
    entities: dict[tuple[str, str], ExtractedEntity] = {}
    for entity in extraction.entities:
        if entity.label not in labels:
            dropped[f"entity label {entity.label!r} not in schema"] += 1
            continue
        if not entity.name.strip():
            dropped["entity with an empty name"] += 1
            continue
        entities.setdefault((entity.name, entity.label), entity)
    relations = []
    for rel in extraction.relations:
        if rel.type not in schema.relationship_types:
            dropped[f"relationship type {rel.type!r} not in schema"] += 1
        elif not schema.allows(rel.source_label, rel.type, rel.target_label):
            dropped[f"pattern ({rel.source_label})-[:{rel.type}]->({rel.target_label}) not allowed"] += 1
        elif (rel.source, rel.source_label) == (rel.target, rel.target_label):
            dropped["relationship from an entity to itself"] += 1
        elif not rel.source.strip() or not rel.target.strip():
            dropped["relationship with an empty endpoint"] += 1
        else:
            for name, label in ((rel.source, rel.source_label), (rel.target, rel.target_label)):
                entities.setdefault((name, label), ExtractedEntity(name=name, label=label))
            relations.append(rel)
    return extraction.model_copy(update={"entities": list(entities.values()), "relations": relations})
