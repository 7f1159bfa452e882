"""An in-memory, index-based copy of the graph PPR walks: entities, chunks, MENTIONS and entity-entity relationships.

Built from plain rows (what `cypher/graph/snapshot.cypher` returns, or a synthetic generator), so the same code serves
Neo4j, the benchmarks and the tests. Node ids: entities are 0..E-1, chunks E..E+C-1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import sparse

from graphwire.core.names import normalise_name


class EntityRow(NamedTuple):
    key: str
    name: str
    label: str
    aliases: tuple[str, ...] = ()


class MentionRow(NamedTuple):
    chunk_id: str
    entity_key: str
    weight: int = 1  # the MENTIONS `count`
    is_title: bool = False  # the entity is the title of the chunk's document (encyclopedia-style corpora)
    sentences: tuple[int, ...] = ()  # which of the chunk's sentences name the entity
    names: tuple[str, ...] | None = None  # the normalised names the chunk taught the entity; None: not recorded


class RelationRow(NamedTuple):
    source_key: str
    type: str
    target_key: str
    chunk_ids: tuple[str, ...] = ()


@dataclass
class GraphSnapshot:
    entity_keys: list[str]
    entity_names: list[str]
    entity_labels: list[str]
    entity_aliases: list[tuple[str, ...]]
    chunk_ids: list[str]
    mentions: sparse.csr_matrix  # C x E, MENTIONS counts
    titles: sparse.csr_matrix  # C x E, 1 where the entity is the chunk's title
    rel_source: npt.NDArray[np.int64]  # R, entity index
    rel_target: npt.NDArray[np.int64]  # R, entity index
    rel_types: list[str]
    rel_chunks: sparse.csr_matrix  # R x C, 1 where the chunk supports the relationship
    cooccurrence: sparse.csr_matrix | None = None  # E x E, symmetric: sentences naming both entities
    sentences: sparse.csr_matrix | None = None  # S x E, 1 where sentence slot s names the entity
    sentence_chunks: npt.NDArray[np.int64] | None = None  # S, the chunk index of each sentence slot
    # A x C, 1 where the chunk taught the alias (A: every entity's aliases in order, `entity_aliases` flattened), and
    # per entity whether all its mentions recorded what they taught; None on a restriction (computed, not restricted)
    alias_chunks: sparse.csr_matrix | None = None
    aliases_recorded: npt.NDArray[np.bool_] | None = None
    fingerprint: str = ""
    entity_index: dict[str, int] = field(default_factory=dict)
    chunk_index: dict[str, int] = field(default_factory=dict)

    @property
    def n_entities(self) -> int:
        return len(self.entity_keys)

    @property
    def n_chunks(self) -> int:
        return len(self.chunk_ids)

    @property
    def n_nodes(self) -> int:
        return self.n_entities + self.n_chunks

    @property
    def n_relations(self) -> int:
        return len(self.rel_types)

    @cached_property
    def titled(self) -> frozenset[int]:
        """Indices of the entities some chunk has as its title entity (what its document is about)."""
        return frozenset(self.titles.indices.tolist())

    @cached_property
    def titled_keys(self) -> frozenset[str]:
        return frozenset(self.entity_keys[i] for i in self.titled)

    @cached_property
    def entity_mentions(self) -> npt.NDArray[np.int64]:
        """How many chunks mention each entity (MENTIONS counts are at least 1: a stored entry is a mention)."""
        return np.diff(sparse.csc_matrix(self.mentions).indptr).astype(np.int64)

    @cached_property
    def incident(self) -> list[list[int]]:
        """Per entity, the relationships that start or end at it, in relationship order."""
        out: list[list[int]] = [[] for _ in range(self.n_entities)]
        for r, (s, t) in enumerate(zip(self.rel_source.tolist(), self.rel_target.tolist(), strict=True)):
            out[s].append(r)
            out[t].append(r)
        return out

    def chunk_counts(self) -> npt.NDArray[np.float64]:
        """How many chunks mention each entity (HippoRAG's |P_i| for node specificity)."""
        return self.entity_mentions.astype(np.float64)

    def restricted(self, readable: frozenset[str], scope: str) -> GraphSnapshot:
        """The snapshot of only what the chunks in `readable` support, as `build_snapshot` makes it from their rows
        alone (a restricted reader's walks, retrieval/scope.py): their mentions, titles and sentences, the
        relationships with a supporting chunk among them (cut to those chunks), the entities those name, and of an
        entity's aliases those a readable chunk taught it (`readable_aliases`)."""
        chunks = np.flatnonzero([chunk_id in readable for chunk_id in self.chunk_ids])
        mentions = sparse.csr_matrix(self.mentions[chunks])
        rel_chunks = sparse.csr_matrix(self.rel_chunks[:, chunks])
        relations = np.flatnonzero(np.diff(rel_chunks.indptr) > 0)
        mentioned = np.diff(sparse.csc_matrix(mentions).indptr) > 0
        visible = mentioned.copy()
        visible[self.rel_source[relations]] = True
        visible[self.rel_target[relations]] = True
        entities = np.flatnonzero(visible)
        position = np.full(self.n_entities, -1, dtype=np.int64)
        position[entities] = np.arange(len(entities))
        aliases = self.readable_aliases(chunks, mentions)
        sentences, sentence_chunks, cooccurrence = self._restricted_sentences(chunks, entities)
        keys = [self.entity_keys[i] for i in entities]
        chunk_ids = [self.chunk_ids[i] for i in chunks]
        return GraphSnapshot(
            entity_keys=keys,
            entity_names=[self.entity_names[i] for i in entities],
            entity_labels=[self.entity_labels[i] for i in entities],
            entity_aliases=[aliases[i] for i in entities],
            chunk_ids=chunk_ids,
            mentions=sparse.csr_matrix(mentions[:, entities]),
            titles=sparse.csr_matrix(self.titles[chunks][:, entities]),
            rel_source=position[self.rel_source[relations]],
            rel_target=position[self.rel_target[relations]],
            rel_types=[self.rel_types[r] for r in relations],
            rel_chunks=sparse.csr_matrix(rel_chunks[relations]),
            cooccurrence=cooccurrence,
            sentences=sentences,
            sentence_chunks=sentence_chunks,
            fingerprint=f"{self.fingerprint}@{scope}",
            entity_index={key: i for i, key in enumerate(keys)},
            chunk_index={chunk_id: i for i, chunk_id in enumerate(chunk_ids)},
        )

    def readable_aliases(self, chunks: npt.NDArray[np.int64], mentions: sparse.csr_matrix) -> list[tuple[str, ...]]:
        """Per entity, the aliases a chunk at `chunks` taught it (`mentions`: those chunks' rows), and its own name.
        An entity some mention of which recorded no names (written before they were) keeps its aliases only when
        every chunk that mentions it is among `chunks`."""
        fully_read = self.entity_mentions == np.diff(sparse.csc_matrix(mentions).indptr)
        if self.alias_chunks is None or self.aliases_recorded is None:
            return [self.entity_aliases[i] if fully_read[i] else () for i in range(self.n_entities)]
        taught = np.diff(sparse.csr_matrix(self.alias_chunks[:, chunks]).indptr) > 0
        out: list[tuple[str, ...]] = []
        row = 0
        for i, aliases in enumerate(self.entity_aliases):
            if not self.aliases_recorded[i]:
                out.append(aliases if fully_read[i] else ())
            else:
                name = normalise_name(self.entity_names[i])
                out.append(tuple(a for j, a in enumerate(aliases) if taught[row + j] or normalise_name(a) == name))
            row += len(aliases)
        return out

    def _restricted_sentences(
        self, chunks: npt.NDArray[np.int64], entities: npt.NDArray[np.int64]
    ) -> tuple[sparse.csr_matrix | None, npt.NDArray[np.int64] | None, sparse.csr_matrix | None]:
        """The sentence slots of `chunks` over `entities`, their chunks' new indices and the co-occurrence."""
        if self.sentences is None or self.sentence_chunks is None:
            return None, None, None
        position = np.full(self.n_chunks, -1, dtype=np.int64)
        position[chunks] = np.arange(len(chunks))
        slots = np.flatnonzero(position[self.sentence_chunks] >= 0)
        incidence = sparse.csr_matrix(self.sentences[slots][:, entities])
        return incidence, position[self.sentence_chunks[slots]], _pairs(incidence)

    def memory_bytes(self) -> int:
        arrays = [self.rel_source, self.rel_target]
        mats = [self.mentions, self.titles, self.rel_chunks]
        mats += [m for m in (self.cooccurrence, self.sentences, self.alias_chunks) if m is not None]
        total = sum(a.nbytes for a in arrays)
        total += sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes for m in mats)
        return int(total)


@dataclass
class _Entities:
    keys: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    aliases: list[tuple[str, ...]] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)

    @cached_property
    def alias_rows(self) -> list[int]:
        """Per entity, the row of its first alias among all entities' aliases in order (`alias_chunks`)."""
        return np.concatenate([[0], np.cumsum([len(a) for a in self.aliases])]).astype(int).tolist()

    @cached_property
    def alias_norms(self) -> list[tuple[str, ...]]:
        return [tuple(normalise_name(a) for a in aliases) for aliases in self.aliases]

    def taught_by(self, entity: int, names: tuple[str, ...]) -> list[int]:
        """The alias rows of `entity` whose normalised form is among `names`."""
        first = self.alias_rows[entity]
        return [first + j for j, norm in enumerate(self.alias_norms[entity]) if norm in names]

    @classmethod
    def of(cls, rows: Iterable[EntityRow]) -> _Entities:
        out = cls()
        for row in rows:
            if row.key in out.index:
                continue
            out.index[row.key] = len(out.keys)
            out.keys.append(row.key)
            out.names.append(row.name)
            out.labels.append(row.label)
            out.aliases.append(tuple(row.aliases))
        return out


class _ChunkIds(dict[str, int]):
    """Chunk id -> index, in order of first appearance (chunks are known through their mentions and relations)."""

    def of(self, chunk: str) -> int:
        idx = self.get(chunk)
        if idx is None:
            idx = self[chunk] = len(self)
        return idx

    def ordered(self) -> list[str]:
        ids = [""] * len(self)
        for chunk, idx in self.items():
            ids[idx] = chunk
        return ids


@dataclass
class _Triplets:
    """(row, col, value) lists for one sparse matrix."""

    rows: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    vals: list[float] = field(default_factory=list)

    def add(self, row: int, col: int, value: float = 1.0) -> None:
        self.rows.append(row)
        self.cols.append(col)
        self.vals.append(value)

    def matrix(self, shape: tuple[int, int], binary: bool = False) -> sparse.csr_matrix:
        m = sparse.csr_matrix((self.vals, (self.rows, self.cols)), shape=shape, dtype=np.float64)
        if binary:
            m.data[:] = 1.0  # duplicates are summed on construction; here they count once
        return m


@dataclass
class _MentionParts:
    counts: _Triplets = field(default_factory=_Triplets)  # chunk x entity, MENTIONS counts
    titles: _Triplets = field(default_factory=_Triplets)  # chunk x entity, title entities
    sentences: _Triplets = field(default_factory=_Triplets)  # (chunk, sentence) slot x entity, for co-occurrence
    slots: dict[tuple[int, int], int] = field(default_factory=dict)
    taught: _Triplets = field(default_factory=_Triplets)  # alias x chunk, the chunks that taught each alias
    unrecorded: set[int] = field(default_factory=set)  # entities with a mention that recorded no names


def _mention_parts(mentions: Iterable[MentionRow], entities: _Entities, chunks: _ChunkIds) -> _MentionParts:
    out = _MentionParts()
    for m in mentions:
        ent = entities.index.get(m.entity_key)
        if ent is None:
            continue
        c = chunks.of(m.chunk_id)
        if m.names is None:
            out.unrecorded.add(ent)
        else:
            for alias in entities.taught_by(ent, m.names):
                out.taught.add(alias, c)
        for sentence in m.sentences:
            out.sentences.add(out.slots.setdefault((c, sentence), len(out.slots)), ent)
        out.counts.add(c, ent, float(max(m.weight, 1)))
        if m.is_title:
            out.titles.add(c, ent)
    return out


@dataclass
class _RelationParts:
    source: list[int] = field(default_factory=list)
    target: list[int] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    chunks: _Triplets = field(default_factory=_Triplets)  # relationship x chunk, supporting chunks


def _relation_parts(relations: Iterable[RelationRow], entities: _Entities, chunks: _ChunkIds) -> _RelationParts:
    out = _RelationParts()
    for rel in relations:
        s, t = entities.index.get(rel.source_key), entities.index.get(rel.target_key)
        if s is None or t is None or s == t:
            continue
        r = len(out.types)
        out.source.append(s)
        out.target.append(t)
        out.types.append(rel.type)
        for chunk in rel.chunk_ids:
            out.chunks.add(r, chunks.of(chunk))
    return out


def build_snapshot(
    entities: Iterable[EntityRow],
    mentions: Iterable[MentionRow],
    relations: Iterable[RelationRow],
    fingerprint: str = "",
) -> GraphSnapshot:
    """Index the rows. Rows naming an unknown entity are dropped; chunks are known through their mentions/relations."""
    ents = _Entities.of(entities)
    chunks = _ChunkIds()
    ment = _mention_parts(mentions, ents, chunks)
    rels = _relation_parts(relations, ents, chunks)
    n_e, n_c, n_r = len(ents.keys), len(chunks), len(rels.types)
    incidence = _incidence(ment.sentences.rows, ment.sentences.cols, len(ment.slots), n_e)
    return GraphSnapshot(
        entity_keys=ents.keys,
        entity_names=ents.names,
        entity_labels=ents.labels,
        entity_aliases=ents.aliases,
        chunk_ids=chunks.ordered(),
        mentions=ment.counts.matrix((n_c, n_e)),
        titles=ment.titles.matrix((n_c, n_e), binary=True),
        rel_source=np.asarray(rels.source, dtype=np.int64),
        rel_target=np.asarray(rels.target, dtype=np.int64),
        rel_types=rels.types,
        rel_chunks=rels.chunks.matrix((n_r, n_c), binary=True),
        cooccurrence=_pairs(incidence),
        sentences=incidence,
        sentence_chunks=_slot_chunks(ment.slots),
        alias_chunks=ment.taught.matrix((ents.alias_rows[-1], n_c), binary=True),
        aliases_recorded=np.asarray([i not in ment.unrecorded for i in range(n_e)], dtype=np.bool_),
        fingerprint=fingerprint,
        entity_index=ents.index,
        chunk_index=dict(chunks),
    )


def _incidence(slot_rows: list[int], entity_cols: list[int], n_slots: int, n_entities: int) -> sparse.csr_matrix:
    """S x E: 1 where sentence slot s names entity e."""
    incidence = sparse.csr_matrix(
        (np.ones(len(slot_rows)), (slot_rows, entity_cols)), shape=(n_slots, n_entities), dtype=np.float64
    )
    incidence.data[:] = 1.0
    return incidence


def _slot_chunks(slots: dict[tuple[int, int], int]) -> npt.NDArray[np.int64]:
    """Each sentence slot's chunk index, by slot."""
    out = np.zeros(len(slots), dtype=np.int64)
    for (chunk, _sentence), slot in slots.items():
        out[slot] = chunk
    return out


def _pairs(incidence: sparse.csr_matrix) -> sparse.csr_matrix:
    """E x E: how many sentences name both entities (the diagonal dropped)."""
    pairs = sparse.csr_matrix(incidence.T @ incidence)
    pairs.setdiag(0.0)
    pairs.eliminate_zeros()
    return pairs
