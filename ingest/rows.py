"""Turn resolved extractions and documents into the parameter rows the `cypher/ingest/*` statements UNWIND."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from core.documents import Article, Chunk
from ingest.known_relations import KnownRelations
from ingest.models import Extraction
from ingest.resolve import EntityResolver, ResolvedEntity

Row = dict[str, Any]


@dataclass
class NewAndStored:
    """Rows of documents new to the graph (written with CREATE) and of documents it already has (MERGE)."""

    new: list[Row] = field(default_factory=list)
    stored: list[Row] = field(default_factory=list)

    def add(self, row: Row, is_new: bool) -> None:
        (self.new if is_new else self.stored).append(row)


@dataclass
class GraphRows:
    days: list[Row] = field(default_factory=list)
    entities: list[Row] = field(default_factory=list)
    documents: NewAndStored = field(default_factory=NewAndStored)
    chunks: NewAndStored = field(default_factory=NewAndStored)
    mentions: NewAndStored = field(default_factory=NewAndStored)
    relations: NewAndStored = field(default_factory=NewAndStored)  # new: the graph lacks the relationship


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


@dataclass
class _MentionAccumulator:
    """One chunk's mentions of one entity: how often, whether it is the document's title entity, in which sentences."""

    count: int = 0
    title: bool = False
    sentences: set[int] = field(default_factory=set)

    def add(self, mentions: int, title: bool, sentences: Sequence[int]) -> None:
        self.count += max(mentions, 1)
        self.title = self.title or title
        self.sentences.update(sentences)

    def row(self, chunk_id: str, key: str) -> Row:
        return {"chunk_id": chunk_id, "key": key, "count": self.count, "title": self.title,
                "sentences": sorted(self.sentences)}  # fmt: skip


def build_rows(
    articles: Sequence[Article],
    chunks: Sequence[Chunk],
    extractions: Sequence[Extraction],
    resolver: EntityResolver,
    known: KnownRelations,
    stored_documents: Set[str] = frozenset(),
) -> GraphRows:
    """Rows for one batch. `extractions` holds one per successfully extracted chunk (already pruned and with
    per-document surname resolution applied); `stored_documents` are the ids of documents the graph already had
    when the run started (their rows MERGE, the others CREATE); `known` says which relationships the graph has."""
    rows = GraphRows()
    touched: dict[str, ResolvedEntity] = {}
    doc_publication: dict[str, str] = {}
    for article in articles:
        pub = resolver.resolve(article.source, "Publication") if article.source else None
        if pub is not None:
            touched[pub.key] = pub
            doc_publication[article.doc_id] = pub.key
        row = _document_row(article, doc_publication.get(article.doc_id))
        rows.documents.add(row, article.doc_id not in stored_documents)
    rows.days = [_day_row(day) for day in sorted({a.published_at for a in articles if a.published_at is not None})]
    chunk_publication: dict[str, str] = {}
    chunk_is_new: dict[str, bool] = {}
    for chunk in chunks:
        chunk_is_new[chunk.id] = chunk.document_id not in stored_documents
        rows.chunks.add(_chunk_row(chunk), chunk_is_new[chunk.id])
        if chunk.document_id in doc_publication:
            chunk_publication[chunk.id] = doc_publication[chunk.document_id]
    relations: dict[tuple[str, str, str], _RelationAccumulator] = defaultdict(_RelationAccumulator)
    for extraction in extractions:
        counts: dict[str, _MentionAccumulator] = defaultdict(_MentionAccumulator)
        for entity in extraction.entities:
            resolved = resolver.resolve(entity.name, entity.label)
            if resolved is None:
                continue
            for alias in entity.aliases:
                resolver.add_alias(resolved, alias)
            touched[resolved.key] = resolved
            counts[resolved.key].add(entity.mentions, entity.title, entity.sentences)
        for key, mention in counts.items():
            rows.mentions.add(mention.row(extraction.chunk_id, key), chunk_is_new[extraction.chunk_id])
        for rel in extraction.relations:
            source = resolver.resolve(rel.source, rel.source_label)
            target = resolver.resolve(rel.target, rel.target_label)
            if source is None or target is None or source.key == target.key:
                continue
            touched[source.key], touched[target.key] = source, target
            relations[(source.key, rel.type, target.key)].add(extraction.chunk_id, rel.evidence, extraction.extractor)
        publication = chunk_publication.get(extraction.chunk_id)
        if publication is not None:
            for key in counts:
                if touched[key].label != "Publication":
                    relations[(key, "REPORTED_BY", publication)].add(extraction.chunk_id, None, "enrich")
    rows.entities = [_entity_row(e) for e in resolver.take_unstored(touched)]
    known.prefetch(source for source, _, _ in relations)
    for (s, t, o), acc in relations.items():
        evidence = acc.evidence if any(acc.evidence) else None  # no sentence states it: no evidence list
        row = {"source": s, "type": t, "target": o, "chunk_ids": acc.chunk_ids, "evidence": evidence,
               "extractor": acc.extractor}  # fmt: skip
        rows.relations.add(row, known.claim(s, t, o))
    return rows


def _document_row(article: Article, publication: str | None) -> Row:
    return {
        "id": article.doc_id,
        "title": article.title,
        "source": article.source,
        "url": article.url,
        "author": article.author,
        "category": article.category,
        "published_at": article.published_at.isoformat() if article.published_at else None,
        "date": article.published_at.isoformat() if article.published_at else None,
        "publication": publication,
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


def _day_row(day: date) -> Row:
    return {
        "date": day.isoformat(),
        "year": day.year,
        "month": day.month,
        "day": day.day,
        "prev": (day - timedelta(days=1)).isoformat(),
        "next": (day + timedelta(days=1)).isoformat(),
    }
