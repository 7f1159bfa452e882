"""The enrich stage: graph structure derived beyond what the extractor found.

Each document's publication (its resolved source, an entity of the schema's `publisher_label`), the schema's
`reported_by_type` relationship from every entity a chunk mentions to the publication of the chunk's document, and the
Date layer (one row per day a batch's documents were published).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from graphwire.core.documents import Article, Chunk
from graphwire.ingest.resolve import EntityResolver, ResolvedEntity
from graphwire.schema.roles import SchemaRoles

ENRICH_EXTRACTOR = "enrich"  # the `extractor` recorded on the relationships this stage derives

Triple = tuple[str, str, str]  # (source key, relationship type, target key)


@dataclass(frozen=True)
class Enrichment:
    """One batch's derived structure: publications by document and by chunk, and its Date rows."""

    publications: dict[str, ResolvedEntity]  # document id -> its publication entity
    chunk_publication: dict[str, str]  # chunk id -> the publication key of its document
    days: list[dict[str, Any]]
    roles: SchemaRoles

    def publication_key(self, doc_id: str) -> str | None:
        publication = self.publications.get(doc_id)
        return publication.key if publication is not None else None

    def reported_by(self, chunk_id: str, mentioned: Iterable[ResolvedEntity]) -> list[Triple]:
        """entity -reported by-> publication for each entity the chunk mentions (publications themselves aside)."""
        publication = self.chunk_publication.get(chunk_id)
        if publication is None:
            return []
        reported_by, publisher = self.roles.reported_by_type, self.roles.publisher_label
        return [(entity.key, reported_by, publication) for entity in mentioned if entity.label != publisher]


def enrich(articles: Sequence[Article], chunks: Sequence[Chunk], resolver: EntityResolver) -> Enrichment:
    publications = document_publications(articles, resolver)
    chunk_publication = {c.id: publications[c.document_id].key for c in chunks if c.document_id in publications}
    return Enrichment(publications, chunk_publication, day_rows(articles), resolver.roles)


def document_publications(articles: Sequence[Article], resolver: EntityResolver) -> dict[str, ResolvedEntity]:
    """The publication entity of each document that names a source, by document id."""
    publications: dict[str, ResolvedEntity] = {}
    for article in articles:
        publication = resolver.resolve(article.source, resolver.roles.publisher_label) if article.source else None
        if publication is not None:
            publications[article.doc_id] = publication
    return publications


def day_rows(articles: Sequence[Article]) -> list[dict[str, Any]]:
    """The Date layer rows of a batch: each day a document was published, in order."""
    return [_day_row(day) for day in sorted({a.published_at for a in articles if a.published_at is not None})]


def _day_row(day: date) -> dict[str, Any]:
    return {
        "date": day.isoformat(),
        "year": day.year,
        "month": day.month,
        "day": day.day,
        "prev": (day - timedelta(days=1)).isoformat(),
        "next": (day + timedelta(days=1)).isoformat(),
    }
