"""A retrieval as a restricted reader sees it: what the mode found, cut to the chunks of documents the reader may read.

`retrieve_as` is the retrieve door's reader step (app/querying.py, the Python API, `graphwire ask`): an unrestricted
reader (`core.access.EVERYONE`) gets the mode's result untouched; a restricted one gets the mode's ranking read
`READ_DEPTH` times deeper (and once more `READ_DEPTH` times deeper again when the cut leaves fewer than top_k chunks
and the mode had more), then only:
- chunks and excerpts of documents it may read (a chunk the graph does not hold is not readable: fail closed);
- facts with at least one readable supporting chunk, their chunk ids and evidence sentences cut to those;
- matched entities that a readable chunk mentions, and named outlets with a readable document; a question whose
  every match is cut gets the answer a question matching nothing gets (no existence oracle);
- no per-mode `details` (seeds and mentions may name what it may not read).

What is not yet done (docs/security.md): the rankings themselves are computed over the whole store, so unreadable
documents can still decide the order of readable ones.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from graphwire.core.access import Reader
from graphwire.core.clients.graph import Graph
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.graph.retriever import NO_MATCH_REASON
from graphwire.retrieval.graph_version import GraphVersion
from graphwire.retrieval.models import Fact, QuestionSummary, RetrievalResult

READ_DEPTH = 5  # a restricted reader's retrieval reads this many times top_k, so the cut leaves top_k more often

Access = tuple[str, ...]


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
    ) -> None:
        """`graph`: where unknown entities are read (None: an entity not in `entities` is not readable)."""
        self.chunks = chunks
        self.sources = sources
        self.graph = graph
        # whether any chunk carries an access list (none does: every reader reads everything); asked on every
        # restricted reader's question, so found once, not by scanning every chunk each time
        self.restricted = any(access is not None for access in chunks.values())
        self._entities = dict(entities or {})
        self._lock = threading.Lock()

    @classmethod
    def read(cls, graph: Graph) -> AccessMap:
        [row] = graph.read("access/map")
        chunks = {chunk_id: tuple(access) if access else None for chunk_id, access in row["chunks"]}
        return cls(chunks, {source: [tuple(a) for a in lists] for source, lists in row["sources"]}, graph)

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
                self._current = (fingerprint, AccessMap.read(self.graph))
            return self._current[1]


def retrieve_as(
    retriever: Retriever, access: Callable[[], AccessMap] | None, question: str, top_k: int, reader: Reader
) -> RetrievalResult:
    """`retriever`'s result for `question` as `reader` may see it (module docstring). Access lists live in Neo4j:
    without a graph, a restricted reader gets `AccessUnknownError`, never an unfiltered result. A reader whom no
    document is closed to gets the mode's result untouched."""
    if reader.unrestricted:
        return retriever.retrieve(question, top_k=top_k)
    if access is None:
        raise AccessUnknownError("this caller may read only some documents, and without Neo4j nobody can tell which")
    current = access()
    depth = top_k * (READ_DEPTH if current.restricted else 1)
    result = retriever.retrieve(question, top_k=depth)
    if not current.restricted and all(c in current.chunks for c in _chunk_ids(result)):
        return result  # nothing is closed to anyone, and the map knows every chunk the result names
    seen = cut(result, current.readable(result, reader), top_k)
    if len(seen.chunks) < top_k and len(result.chunks) >= depth:  # short, and the mode had more: once, deeper
        result = retriever.retrieve(question, top_k=depth * READ_DEPTH)
        seen = cut(result, current.readable(result, reader), top_k)
    return seen


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
    """The fact with its readable supporting chunks and their evidence sentences (evidence[i] is chunk_ids[i]'s, for
    the chunks that have one), or None when none is readable."""
    kept = [i for i, chunk_id in enumerate(fact.chunk_ids) if chunk_id in readable]
    if not kept:
        return None
    evidence = [fact.evidence[i] for i in kept if i < len(fact.evidence)]
    return fact.model_copy(update={"chunk_ids": [fact.chunk_ids[i] for i in kept], "evidence": evidence})


def _summary(summary: QuestionSummary | None, sources: set[str]) -> QuestionSummary | None:
    """Outlets without a readable document move to the outlets the graph does not have."""
    if summary is None:
        return None
    outlets = [o for o in summary.outlets if not o.in_corpus or set(o.sources) & sources]
    hidden = [o.mention for o in summary.outlets if o.in_corpus and not set(o.sources) & sources]
    return summary.model_copy(
        update={"outlets": outlets, "unknown_publications": [*summary.unknown_publications, *hidden]}
    )
