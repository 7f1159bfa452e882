"""A retrieval as a restricted reader sees it: what the mode found, cut to the chunks of documents the reader may read.

`retrieve_as` is the retrieve door's reader step (app/querying.py, the Python API, `graphwire ask`): an unrestricted
reader (`core.access.EVERYONE`) gets the mode's result untouched; a restricted one gets the mode's ranking read
`READ_DEPTH` times deeper, then only:
- chunks and excerpts of documents it may read (a chunk the graph does not hold is not readable: fail closed);
- facts with at least one readable supporting chunk, their chunk ids and evidence sentences cut to those;
- matched entities that a readable chunk mentions, and named outlets with a readable document; a question whose
  every match is cut gets the answer a question matching nothing gets (no existence oracle);
- no per-mode `details` (seeds and mentions may name what it may not read).

What is not yet done (docs/security.md): the rankings themselves are computed over the whole store, so unreadable
documents can still decide the order of readable ones.
"""

from __future__ import annotations

from collections.abc import Callable

from graphwire.core.access import Reader
from graphwire.core.clients.graph import Graph
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.graph.retriever import NO_MATCH_REASON
from graphwire.retrieval.models import Fact, QuestionSummary, RetrievalResult

READ_DEPTH = 3  # a restricted reader's retrieval reads this many times top_k, so the cut leaves top_k more often


def retrieve_as(
    retriever: Retriever, graph: Callable[[], Graph] | None, question: str, top_k: int, reader: Reader
) -> RetrievalResult:
    """`retriever`'s result for `question` as `reader` may see it (module docstring). Documents' access lists live
    in Neo4j: without a graph, a restricted reader gets `AccessUnknownError`, never an unfiltered result."""
    if reader.unrestricted:
        return retriever.retrieve(question, top_k=top_k)
    if graph is None:
        raise AccessUnknownError("this caller may read only some documents, and without Neo4j nobody can tell which")
    result = retriever.retrieve(question, top_k=top_k * READ_DEPTH)
    return cut(result, readable_parts(graph(), result, reader), top_k)


class AccessUnknownError(RuntimeError):
    """A restricted reader's retrieval without the graph that holds the documents' access lists."""


class Readable:
    """What of one result a reader may see: chunk ids, entity keys and outlet sources."""

    def __init__(self, chunks: set[str], entities: set[str], sources: set[str]) -> None:
        self.chunks = chunks
        self.entities = entities
        self.sources = sources


def readable_parts(graph: Graph, result: RetrievalResult, reader: Reader) -> Readable:
    """One read (`access/readable`) for every chunk, entity and outlet the result names."""
    chunk_ids = {c.chunk_id for c in result.chunks} | {e.chunk_id for e in result.excerpts}
    chunk_ids |= {chunk_id for fact in result.facts for chunk_id in fact.chunk_ids}
    outlets = result.analysis.outlets if result.analysis is not None else []
    [row] = graph.read(
        "access/readable",
        chunk_ids=sorted(chunk_ids),
        entity_keys=sorted({e.key for e in result.entities}),
        sources=sorted({s for outlet in outlets for s in outlet.sources}),
        readers=reader.param(),
    )
    return Readable(set(row["chunks"]), set(row["entities"]), set(row["sources"]))


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
