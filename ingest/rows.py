"""Turn resolved extractions and documents into the parameter rows the `cypher/ingest/*` statements UNWIND."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from core.documents import Article, Chunk
from ingest.models import Extraction
from ingest.resolve import EntityResolver, ResolvedEntity

Row = dict[str, Any]


@dataclass
class GraphRows:
    documents: list[Row] = field(default_factory=list)
    chunks: list[Row] = field(default_factory=list)
    entities: list[Row] = field(default_factory=list)
    mentions: list[Row] = field(default_factory=list)
    relations: list[Row] = field(default_factory=list)
    publications: list[Row] = field(default_factory=list)
    dates: list[Row] = field(default_factory=list)


@dataclass
class _RelationAccumulator:
    chunk_ids: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    extractor: str = "offline"

    def add(self, chunk_id: str, evidence: str | None, extractor: str) -> None:
        if chunk_id not in self.chunk_ids:
            self.chunk_ids.append(chunk_id)
            self.evidence.append(evidence or "")
        self.extractor = extractor


def build_rows(
    articles: Sequence[Article],
    chunks: Sequence[Chunk],
    extractions: Sequence[Extraction],
    resolver: EntityResolver,
) -> GraphRows:
    """Rows for one batch. `extractions` holds one per successfully extracted chunk (already pruned and with
    per-document surname resolution applied)."""
    rows = GraphRows()
    touched: dict[str, ResolvedEntity] = {}
    chunk_publication: dict[str, str] = {}
    for article in articles:
        rows.documents.append(_document_row(article))
        pub = resolver.resolve(article.source, "Publication") if article.source else None
        if pub is not None:
            touched[pub.key] = pub
            rows.publications.append({"id": article.doc_id, "publication": pub.key})
        if article.published_at is not None:
            rows.dates.append(_date_row(article.doc_id, article.published_at))
    doc_publication = {r["id"]: r["publication"] for r in rows.publications}
    for chunk in chunks:
        rows.chunks.append(_chunk_row(chunk))
        if chunk.document_id in doc_publication:
            chunk_publication[chunk.id] = doc_publication[chunk.document_id]
    relations: dict[tuple[str, str, str], _RelationAccumulator] = defaultdict(_RelationAccumulator)
    for extraction in extractions:
        counts: dict[str, int] = defaultdict(int)
        for entity in extraction.entities:
            resolved = resolver.resolve(entity.name, entity.label)
            if resolved is None:
                continue
            for alias in entity.aliases:
                resolver.add_alias(resolved, alias)
            touched[resolved.key] = resolved
            counts[resolved.key] += max(entity.mentions, 1)
        for key, count in counts.items():
            rows.mentions.append({"chunk_id": extraction.chunk_id, "key": key, "count": count})
        for rel in extraction.relations:
            source = resolver.resolve(rel.source, rel.source_label)
            target = resolver.resolve(rel.target, rel.target_label)
            if source is None or target is None or source.key == target.key:
                continue
            relations[(source.key, rel.type, target.key)].add(extraction.chunk_id, rel.evidence, extraction.extractor)
        publication = chunk_publication.get(extraction.chunk_id)
        if publication is not None:
            for key in counts:
                if touched[key].label != "Publication":
                    relations[(key, "REPORTED_BY", publication)].add(extraction.chunk_id, None, "enrich")
    rows.entities = [_entity_row(e) for e in touched.values()]
    rows.relations = [
        {"source": s, "type": t, "target": o, "chunk_ids": acc.chunk_ids, "evidence": acc.evidence,
         "extractor": acc.extractor}
        for (s, t, o), acc in relations.items()
    ]  # fmt: skip
    return rows


def _document_row(article: Article) -> Row:
    return {
        "id": article.doc_id,
        "title": article.title,
        "source": article.source,
        "url": article.url,
        "author": article.author,
        "category": article.category,
        "published_at": article.published_at.isoformat() if article.published_at else None,
    }


def _chunk_row(chunk: Chunk) -> Row:
    return {
        "id": chunk.id,
        "document_id": chunk.document_id,
        "index": chunk.index,
        "text": chunk.text,
        "title": chunk.title,
        "source": chunk.source,
        "published_at": chunk.published_at.isoformat() if chunk.published_at else None,
    }


def _entity_row(entity: ResolvedEntity) -> Row:
    return {
        "key": entity.key,
        "label": entity.label,
        "name": entity.name,
        "norm": entity.norm,
        "aliases": list(dict.fromkeys(entity.aliases)),
    }


def _date_row(doc_id: str, day: date) -> Row:
    return {
        "id": doc_id,
        "date": day.isoformat(),
        "year": day.year,
        "month": day.month,
        "day": day.day,
        "prev": (day - timedelta(days=1)).isoformat(),
        "next": (day + timedelta(days=1)).isoformat(),
    }
