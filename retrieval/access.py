"""A retrieval as a restricted reader sees it: what the mode found, cut to the chunks of documents the reader may read.

`retrieve_as` is the retrieve door's reader step (app/querying.py, the Python API, `graphwire ask`): an unrestricted
reader (`core.access.EVERYONE`) gets the mode's result untouched; a restricted one gets the result of the mode built
over its scope (retrieval/scope.py: rankings computed over only what it may read), then, as a last guard, only:
- chunks and excerpts of documents it may read (a chunk the graph does not hold is not readable: fail closed);
- facts with at least one readable supporting chunk, their chunk ids and evidence sentences cut to those;
- matched entities that a readable chunk mentions, and named outlets with a readable document; a question whose
  every match is cut gets the answer a question matching nothing gets (no existence oracle);
- no per-mode `details` (seeds and mentions may name what it may not read).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Container
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphwire.core.access import Reader
from graphwire.core.clients.graph import Graph
from graphwire.retrieval.graph.retriever import NO_MATCH_REASON
from graphwire.retrieval.graph_version import GraphVersion
from graphwire.retrieval.models import Fact, QuestionSummary, RetrievalResult
from graphwire.retrieval.scope import Access, Scope, readable_support

if TYPE_CHECKING:
    from graphwire.retrieval.registry import RetrievalContext


class AccessMap:
    """Who may read what, for one graph version: every chunk id the graph holds with its access list (None:
    everyone) and the sources with no open document with their documents' lists (`cypher/access/map.cypher`, read
    once per version), and the entities results name, read as they come (`cypher/access/entities.cypher`) and kept
    for the version: None when an open chunk mentions it or an open document is reported by it, else the lists of
    those that do."""

    def __init__(
        self,
        chunks: dict[str, Access | None],
        sources: dict[str, list[Access]],
        graph: Graph | None = None,
        entities: dict[str, list[Access] | None] | None = None,
        version: str = "",
    ) -> None:
        """`graph`: where unknown entities are read (None: an entity not in `entities` is not readable);
        `version`: the graph version it was read at (part of every scope's key)."""
        self.chunks = chunks
        self.sources = sources
        self.graph = graph
        self.version = version
        lists = {a for a in chunks.values() if a is not None} | {a for ls in sources.values() for a in ls}
        self._lists = frozenset(lists)  # every access list the store holds
        self._scopes: dict[frozenset[Access], Scope] = {}
        self._entities = dict(entities or {})
        self._lock = threading.Lock()

    @classmethod
    def read(cls, graph: Graph, version: str = "") -> AccessMap:
        [row] = graph.read("access/map")
        chunks = {chunk_id: tuple(access) if access else None for chunk_id, access in row["chunks"]}
        sources = {source: [tuple(a) for a in lists] for source, lists in row["sources"]}
        return cls(chunks, sources, graph, version=version)

    def scope(self, reader: Reader) -> Scope | None:
        """What `reader` may read (retrieval/scope.py), or None when it may read every access list the store holds;
        readers of the same lists get the same `Scope`."""
        readable = frozenset(a for a in self._lists if reader.can_read(a))
        if readable == self._lists:
            return None
        with self._lock:
            found = self._scopes.get(readable)
        if found is not None:
            return found
        digest = hashlib.sha256(repr((self.version, sorted(readable))).encode()).hexdigest()[:16]
        made = Scope(
            key=digest,
            chunks=frozenset(c for c, access in self.chunks.items() if access is None or access in readable),
            access=readable,
            hidden_sources=frozenset(s for s, lists in self.sources.items() if not readable.intersection(lists)),
        )
        with self._lock:
            return self._scopes.setdefault(readable, made)

    def entity_access(self, keys: set[str]) -> dict[str, list[Access] | None]:
        """Each key's entry (module docstring), reading the ones not seen yet in one statement; a key the graph
        does not hold is left out (not readable)."""
        with self._lock:
            missing = sorted(k for k in keys if k not in self._entities)
        if missing and self.graph is not None:
            rows = self.graph.read("access/entities", keys=missing)
            found = {r["key"]: None if r["open"] else [tuple(a) for a in r["lists"]] for r in rows}
            with self._lock:
                self._entities.update(found)
        with self._lock:
            return {k: self._entities[k] for k in keys if k in self._entities}

    def readable(self, result: RetrievalResult, reader: Reader) -> Readable:
        """What of `result` `reader` may see; a chunk id the graph does not hold is not readable (fail closed: a
        chunk written after this map was read waits for the next one)."""
        chunk_ids = _chunk_ids(result)
        outlets = result.analysis.outlets if result.analysis is not None else []
        sources = {s for outlet in outlets for s in outlet.sources}
        entities = self.entity_access({e.key for e in result.entities})
        return Readable(
            chunks={c for c in chunk_ids if c in self.chunks and reader.can_read(self.chunks[c])},
            entities={k for k, lists in entities.items() if _any_readable(lists, reader)},
            sources={s for s in sources if _any_readable(self.sources.get(s), reader)},
        )


def _chunk_ids(result: RetrievalResult) -> set[str]:
    ids = {c.chunk_id for c in result.chunks} | {e.chunk_id for e in result.excerpts}
    return ids | {chunk_id for fact in result.facts for chunk_id in fact.chunk_ids}


def _any_readable(lists: list[Access] | None, reader: Reader) -> bool:
    """None: something open holds it; else one of the access lists must admit the reader."""
    return lists is None or any(reader.can_read(access) for access in lists)


class AccessMaps:
    """The `AccessMap` of the graph's current version, read again when the version changes (GraphServices holds
    one; an access change made by this process is seen at once, one made by another within PPR_SNAPSHOT_CHECK_S)."""

    def __init__(self, graph: Graph, version: GraphVersion) -> None:
        self.graph = graph
        self.version = version
        self._lock = threading.Lock()
        self._current: tuple[str, AccessMap] | None = None

    def get(self) -> AccessMap:
        fingerprint = self.version.fingerprint()
        with self._lock:
            if self._current is None or self._current[0] != fingerprint:
                self._current = (fingerprint, AccessMap.read(self.graph, fingerprint))
            return self._current[1]


def retrieve_as(ctx: RetrievalContext, mode: str, question: str, top_k: int, reader: Reader) -> RetrievalResult:
    """`mode`'s result for `question` as `reader` may see it (module docstring). Access lists live in Neo4j: without
    a graph, a restricted reader gets `AccessUnknownError`, never an unfiltered result. A reader whom no document is
    closed to gets the mode's result untouched."""
    retriever = ctx.retriever(mode)
    if reader.unrestricted:
        return retriever.retrieve(question, top_k=top_k)
    current = access_map(ctx)
    scope = current.scope(reader)
    if scope is None:  # it may read every list the store holds
        result = retriever.retrieve(question, top_k=top_k)
        if all(c in current.chunks for c in _chunk_ids(result)):
            return result  # and the map knows every chunk the result names
        return cut(result, current.readable(result, reader), top_k)
    view = ctx.scoped(scope)
    result = view.retriever(mode).retrieve(question, top_k=top_k)
    return cut(result, within(result, scope, view.services().snapshots.snapshot().entity_index), top_k)


def access_map(ctx: RetrievalContext) -> AccessMap:
    """The graph's current access map; without a graph, `AccessUnknownError` (a restricted reader is refused, never
    served unfiltered)."""
    access = ctx.access()
    if access is None:
        raise AccessUnknownError("this caller may read only some documents, and without Neo4j nobody can tell which")
    return access()


def within(result: RetrievalResult, scope: Scope, entities: Container[str]) -> Readable:
    """What of a scoped mode's `result` its scope holds (`entities`: the keys of its snapshot's entities): the guard
    behind the views, which should have returned nothing else; no read of the graph."""
    outlets = result.analysis.outlets if result.analysis is not None else []
    return Readable(
        chunks={c for c in _chunk_ids(result) if c in scope.chunks},
        entities={e.key for e in result.entities if e.key in entities},
        sources={s for outlet in outlets for s in outlet.sources if s not in scope.hidden_sources},
    )


class AccessUnknownError(RuntimeError):
    """A restricted reader's retrieval without the graph that holds the documents' access lists."""


@dataclass(frozen=True)
class Readable:
    """What of one result a reader may see: chunk ids, entity keys and outlet sources."""

    chunks: set[str]
    entities: set[str]
    sources: set[str]


def cut(result: RetrievalResult, readable: Readable, top_k: int) -> RetrievalResult:
    """`result` with only what `readable` allows, its chunks cut to `top_k`."""
    entities = [e for e in result.entities if e.key in readable.entities]
    analysis = _summary(result.analysis, readable.sources)
    reason = result.abstain_reason
    matched = bool(entities) or any(o.in_corpus for o in (analysis.outlets if analysis else []))
    if reason is None and result.entities and not matched:
        reason = NO_MATCH_REASON
    # every match cut: the facts hang on entities it may not know of
    facts = (
        [kept for f in result.facts if (kept := _fact(f, readable.chunks))] if matched or not result.entities else []
    )
    return result.model_copy(
        update={
            "chunks": [c for c in result.chunks if c.chunk_id in readable.chunks][:top_k],
            "facts": facts,
            "entities": entities,
            "analysis": analysis,
            "excerpts": [e for e in result.excerpts if e.chunk_id in readable.chunks],
            "abstain_reason": reason,
            "details": {},
        }
    )


def _fact(fact: Fact, readable: set[str]) -> Fact | None:
    """The fact with its readable supporting chunks and their evidence sentences, or None when none is readable."""
    chunk_ids, evidence = readable_support(fact.chunk_ids, fact.evidence, readable)
    return fact.model_copy(update={"chunk_ids": chunk_ids, "evidence": evidence}) if chunk_ids else None


def _summary(summary: QuestionSummary | None, sources: set[str]) -> QuestionSummary | None:
    """Outlets without a readable document move to the outlets the graph does not have."""
    if summary is None:
        return None
    outlets = [o for o in summary.outlets if not o.in_corpus or set(o.sources) & sources]
    hidden = [o.mention for o in summary.outlets if o.in_corpus and not set(o.sources) & sources]
    return summary.model_copy(
        update={"outlets": outlets, "unknown_publications": [*summary.unknown_publications, *hidden]}
    )
