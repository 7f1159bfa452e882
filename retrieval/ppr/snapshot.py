"""An in-memory, index-based copy of the graph PPR walks: entities, chunks, MENTIONS and entity-entity relationships.

Built from plain rows (what `cypher/graph/snapshot.cypher` returns, or a synthetic generator), so the same code serves
Neo4j, the benchmarks and the tests. Node ids: entities are 0..E-1, chunks E..E+C-1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import sparse


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

    def chunk_counts(self) -> npt.NDArray[np.float64]:
        """How many chunks mention each entity (HippoRAG's |P_i| for node specificity)."""
        return np.asarray((self.mentions > 0).sum(axis=0)).ravel().astype(np.float64)

    def memory_bytes(self) -> int:
        arrays = [self.rel_source, self.rel_target]
        mats = [self.mentions, self.titles, self.rel_chunks]
        if self.cooccurrence is not None:
            mats.append(self.cooccurrence)
        total = sum(a.nbytes for a in arrays)
        total += sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes for m in mats)
        return int(total)


def build_snapshot(
    entities: Iterable[EntityRow],
    mentions: Iterable[MentionRow],
    relations: Iterable[RelationRow],
    fingerprint: str = "",
) -> GraphSnapshot:
    """Index the rows. Rows naming an unknown entity are dropped; chunks are known through their mentions/relations."""
    keys: list[str] = []
    names: list[str] = []
    labels: list[str] = []
    aliases: list[tuple[str, ...]] = []
    entity_index: dict[str, int] = {}
    for row in entities:
        if row.key in entity_index:
            continue
        entity_index[row.key] = len(keys)
        keys.append(row.key)
        names.append(row.name)
        labels.append(row.label)
        aliases.append(tuple(row.aliases))

    chunk_index: dict[str, int] = {}

    def chunk_id_of(chunk: str) -> int:
        idx = chunk_index.get(chunk)
        if idx is None:
            idx = chunk_index[chunk] = len(chunk_index)
        return idx

    m_rows: list[int] = []
    m_cols: list[int] = []
    m_vals: list[float] = []
    t_rows: list[int] = []
    t_cols: list[int] = []
    s_rows: list[int] = []  # (chunk, sentence) slot -> entity, for co-occurrence
    s_cols: list[int] = []
    slots: dict[tuple[int, int], int] = {}
    for m in mentions:
        ent = entity_index.get(m.entity_key)
        if ent is None:
            continue
        c = chunk_id_of(m.chunk_id)
        for sentence in m.sentences:
            s_rows.append(slots.setdefault((c, sentence), len(slots)))
            s_cols.append(ent)
        m_rows.append(c)
        m_cols.append(ent)
        m_vals.append(float(max(m.weight, 1)))
        if m.is_title:
            t_rows.append(c)
            t_cols.append(ent)

    r_src: list[int] = []
    r_dst: list[int] = []
    r_types: list[str] = []
    rc_rows: list[int] = []
    rc_cols: list[int] = []
    for rel in relations:
        s = entity_index.get(rel.source_key)
        t = entity_index.get(rel.target_key)
        if s is None or t is None or s == t:
            continue
        r = len(r_types)
        r_src.append(s)
        r_dst.append(t)
        r_types.append(rel.type)
        for chunk in rel.chunk_ids:
            rc_rows.append(r)
            rc_cols.append(chunk_id_of(chunk))

    n_e, n_c, n_r = len(keys), len(chunk_index), len(r_types)
    chunk_ids = [""] * n_c
    for chunk, idx in chunk_index.items():
        chunk_ids[idx] = chunk
    mentions_m = sparse.csr_matrix((m_vals, (m_rows, m_cols)), shape=(n_c, n_e), dtype=np.float64)
    titles_m = sparse.csr_matrix((np.ones(len(t_rows)), (t_rows, t_cols)), shape=(n_c, n_e), dtype=np.float64)
    titles_m.data[:] = 1.0
    rel_chunks = sparse.csr_matrix((np.ones(len(rc_rows)), (rc_rows, rc_cols)), shape=(n_r, n_c), dtype=np.float64)
    rel_chunks.data[:] = 1.0  # duplicates summed above; a chunk supports a relationship once
    return GraphSnapshot(
        cooccurrence=_cooccurrence(s_rows, s_cols, len(slots), n_e),
        entity_keys=keys,
        entity_names=names,
        entity_labels=labels,
        entity_aliases=aliases,
        chunk_ids=chunk_ids,
        mentions=mentions_m,
        titles=titles_m,
        rel_source=np.asarray(r_src, dtype=np.int64),
        rel_target=np.asarray(r_dst, dtype=np.int64),
        rel_types=r_types,
        rel_chunks=rel_chunks,
        fingerprint=fingerprint,
        entity_index=entity_index,
        chunk_index=chunk_index,
    )


def _cooccurrence(slot_rows: list[int], entity_cols: list[int], n_slots: int, n_entities: int) -> sparse.csr_matrix:
    """E x E: how many sentences name both entities (the diagonal dropped)."""
    incidence = sparse.csr_matrix(
        (np.ones(len(slot_rows)), (slot_rows, entity_cols)), shape=(n_slots, n_entities), dtype=np.float64
    )
    incidence.data[:] = 1.0
    pairs = sparse.csr_matrix(incidence.T @ incidence)
    pairs.setdiag(0.0)
    pairs.eliminate_zeros()
    return pairs
