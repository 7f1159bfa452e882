"""A restricted reader's scope: the part of the store its rankings are computed over.

A reader some documents are closed to (core/access.py) is not served the whole store's ranking cut afterwards: every
mode runs on a view of the shared state holding only what the reader may read (`RetrievalContext.scoped`), so text it
may not read never decides the order of what it sees:
- the flat modes rank over `IndexSnapshot.restricted` (BM25 with the scope's own idf and lengths, the dense matrix
  and sentences of its chunks; `vector` searches that matrix exactly instead of Chroma's index);
- PPR walks `GraphSnapshot.restricted` (the mentions, relationships, co-occurrences and entities its chunks support;
  passage seeds from the scoped matrix);
- stages 1-2 of the graph mode link names against `NameIndex.restricted` (entities a readable chunk supports, their
  mentions counted in readable chunks, the aliases readable chunks taught (`GraphSnapshot.readable_aliases`), outlets
  with a readable document), and stage 3's templates read only readable supporting and candidate chunks (`$lists`);
- joint, hybrid, auto and the graph mode's fill are built from those, so they see the same scope.

Readers who may read the same access lists share one scope (and its views), named by `key`.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass

Access = tuple[str, ...]


def readable_support(
    chunk_ids: Sequence[str], evidence: Sequence[str], readable: Container[str]
) -> tuple[list[str], list[str]]:
    """A fact's supporting chunk ids cut to `readable`, with their evidence sentences (evidence[i] is chunk_ids[i]'s,
    for the chunks that have one)."""
    kept = [i for i, chunk_id in enumerate(chunk_ids) if chunk_id in readable]
    return [chunk_ids[i] for i in kept], [evidence[i] for i in kept if i < len(evidence)]


@dataclass(frozen=True)
class Scope:
    """What one restricted reader may read in one graph version."""

    key: str  # the graph version and the readable access lists, digested
    chunks: frozenset[str]  # the chunk ids it may read
    access: frozenset[Access]  # the access lists it may read (chunks without a list are readable too)
    hidden_sources: frozenset[str]  # corpus sources none of whose documents it may read

    @property
    def lists(self) -> list[list[str]]:
        """The readable access lists as the templates' `$lists` parameter, sorted."""
        return sorted(list(access) for access in self.access)
