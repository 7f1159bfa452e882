"""Turn resolved extractions and documents into the parameter rows the `cypher/ingest/*` statements UNWIND."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from graphwire.core.documents import Article, Chunk
from graphwire.core.names import normalise_name
from graphwire.ingest.curation.rules import CurationRules
from graphwire.ingest.enrich import ENRICH_EXTRACTOR, enrich
from graphwire.ingest.entity_lookup import lookup_properties
from graphwire.ingest.known_relations import KnownRelations
from graphwire.ingest.models import Extraction
from graphwire.ingest.provenance import ProvenanceCaps, keep_capped
from graphwire.ingest.resolve import EntityResolver, ResolvedEntity
from graphwire.schema.roles import SchemaRoles

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

    def lists(self, cap: int | None) -> tuple[list[str], list[str]]:
        """chunk_ids and evidence; when the type is capped, the stated entries and the `cap` smallest others, sorted."""
        return (self.chunk_ids, self.evidence) if cap is None else keep_capped(self.chunk_ids, self.evidence, cap)


@dataclass
class _MentionAccumulator:
    """One chunk's mentions of one entity: how often, whether it is the document's title entity, in which sentences,
    and by which names (normalised: the aliases this chunk taught the entity, so a reader is shown only the aliases
    its readable chunks taught: `GraphSnapshot.restricted`)."""

    count: int = 0
    title: bool = False
    sentences: set[int] = field(default_factory=set)
    names: set[str] = field(default_factory=set)

    def add(self, mentions: int, title: bool, sentences: Sequence[int], names: Iterable[str] = ()) -> None:
        self.count += max(mentions, 1)
        self.title = self.title or title
        self.sentences.update(sentences)
        self.names.update(norm for norm in map(normalise_name, names) if norm)

    def row(self, chunk_id: str, key: str) -> Row:
        return {"chunk_id": chunk_id, "key": key, "count": self.count, "title": self.title,
                "sentences": sorted(self.sentences), "names": sorted(self.names)}  # fmt: skip


def build_rows(
    articles: Sequence[Article],
    chunks: Sequence[Chunk],
    extractions: Sequence[Extraction],
    resolver: EntityResolver,
    known: KnownRelations,
    stored_documents: Set[str] = frozenset(),
    *,
    provenance: ProvenanceCaps,
    rules: CurationRules | None = None,
) -> GraphRows:
    """Rows for one batch. `extractions` holds one per successfully extracted chunk (already pruned and with
    per-document surname resolution applied); `stored_documents` are the ids of documents the graph already had
    when the run started (their rows MERGE, the others CREATE); `known` says which relationships the graph has;
    `provenance` which types keep capped chunk_ids; `rules` the curation rules every name and relationship is held
    to (the one place ingest honours them: ingest/curation/rules.py)."""
    rows = GraphRows()
    keys = _Keys(resolver, rules, {c.id: c.document_id for c in chunks})
    enrichment = enrich(articles, chunks, resolver)
    touched: dict[str, ResolvedEntity] = {p.key: p for p in enrichment.publications.values()}
    for article in articles:
        row = _document_row(article, enrichment.publication_key(article.doc_id))
        rows.documents.add(row, article.doc_id not in stored_documents)
    rows.days = enrichment.days
    chunk_is_new: dict[str, bool] = {}
    for chunk in chunks:
        chunk_is_new[chunk.id] = chunk.document_id not in stored_documents
        rows.chunks.add(_chunk_row(chunk), chunk_is_new[chunk.id])
    relations: dict[tuple[str, str, str], _RelationAccumulator] = defaultdict(_RelationAccumulator)
    for extraction in extractions:
        counts = _add_extraction(extraction, keys, touched, relations)
        for key, mention in counts.items():
            rows.mentions.add(mention.row(extraction.chunk_id, key), chunk_is_new[extraction.chunk_id])
        for triple in enrichment.reported_by(extraction.chunk_id, (touched[key] for key in counts)):
            relations[triple].add(extraction.chunk_id, None, ENRICH_EXTRACTOR)
    rows.entities = [_entity_row(e, resolver.roles) for e in resolver.take_unstored(touched)]
    if rules is not None:
        relations = {triple: acc for triple, acc in relations.items() if triple not in rules.denied_facts}
    _add_relation_rows(rows, relations, known, provenance)
    return rows


@dataclass
class _Keys:
    """Extracted names to entity keys: the resolver's answer, then the curation rules' (a merged, relabelled or
    aliased name goes to its entity, a deleted entity's to nothing, a split namesake's by chunk and document)."""

    resolver: EntityResolver
    rules: CurationRules | None
    document_of: dict[str, str]

    def entity(self, name: str, label: str, chunk_id: str) -> tuple[ResolvedEntity | None, bool]:
        """The entity, and whether a rule chose it."""
        resolved = self.resolver.resolve(name, label)
        if resolved is None or self.rules is None:
            return resolved, False
        key = self.rules.entity(resolved.key, chunk_id, self.document_of.get(chunk_id))
        if key == resolved.key:
            return resolved, False
        if key is None:
            return None, True
        ruled = self.resolver.by_key(key)
        if ruled is None and key in self.rules.names:  # nothing is left of the rule's entity: written again
            ruled = self.resolver.adopt(key, self.rules.names[key])
        return (resolved, False) if ruled is None else (ruled, True)

    def allows(self, source: ResolvedEntity, type_: str, target: ResolvedEntity, labels: tuple[str, str]) -> bool:
        """A relationship between ends a rule moved to another label must still be a schema pattern."""
        moved = (source.label, target.label) != labels
        return self.rules is None or self.rules.allows((source.key, source.label), type_, (target.key, target.label),
                                                       moved)  # fmt: skip


def _add_extraction(
    extraction: Extraction,
    keys: _Keys,
    touched: dict[str, ResolvedEntity],
    relations: dict[tuple[str, str, str], _RelationAccumulator],
) -> dict[str, _MentionAccumulator]:
    """Resolve one chunk's extraction: its mentions by entity key; its relationships go into `relations`."""
    counts: dict[str, _MentionAccumulator] = defaultdict(_MentionAccumulator)
    chunk_id = extraction.chunk_id
    for entity in extraction.entities:
        resolved, ruled = keys.entity(entity.name, entity.label, chunk_id)
        if resolved is None:
            continue
        taught = [] if ruled else [entity.name, *entity.aliases]  # a rule's entity keeps the names the person gave it
        for alias in taught[1:]:
            keys.resolver.add_alias(resolved, alias)
        touched[resolved.key] = resolved
        counts[resolved.key].add(entity.mentions, entity.title, entity.sentences, taught)
    for rel in extraction.relations:
        source, _ = keys.entity(rel.source, rel.source_label, chunk_id)
        target, _ = keys.entity(rel.target, rel.target_label, chunk_id)
        if source is None or target is None or source.key == target.key:
            continue
        if not keys.allows(source, rel.type, target, (rel.source_label, rel.target_label)):
            continue
        touched[source.key], touched[target.key] = source, target
        relations[(source.key, rel.type, target.key)].add(extraction.chunk_id, rel.evidence, extraction.extractor)
    return counts


def _add_relation_rows(
    rows: GraphRows,
    relations: dict[tuple[str, str, str], _RelationAccumulator],
    known: KnownRelations,
    provenance: ProvenanceCaps,
) -> None:
    known.prefetch(source for source, _, _ in relations)
    for (s, t, o), acc in relations.items():
        cap = provenance.cap_for(t)
        chunk_ids, evidence = acc.lists(cap)
        row = {"source": s, "type": t, "target": o, "chunk_ids": chunk_ids,
               "evidence": evidence if any(evidence) else None,  # no sentence states it: no evidence list
               "extractor": acc.extractor, "cap": cap}  # fmt: skip
        rows.relations.add(row, known.claim(s, t, o))


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
        "access": article.access,
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
        "locator": chunk.locator,
        "char_start": chunk.char_start,
        "char_end": chunk.char_end,
    }


def _entity_row(entity: ResolvedEntity, roles: SchemaRoles) -> Row:
    aliases = list(dict.fromkeys(entity.aliases))
    return {
        "key": entity.key,
        "label": entity.label,
        "name": entity.name,
        "norm": entity.norm,
        "aliases": aliases,
        **lookup_properties(entity.label, entity.name, entity.norm, aliases, roles),
    }
