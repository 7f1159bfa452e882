"""Bridge feedback: the entity a first ranking's top chunks share across documents, for a second ranking.

A question that needs facts from several documents and names no title entity ("Which company, reported by A and B,
...?") is about something every evidence document mentions and the question does not name: the bridge. After one
ranking, the entity that the top chunks of two or more documents mention, and that the question does not name, is
most often that bridge; its name, searched with BM25, tells flat+'s picks which chunk of each document speaks of it.
Pseudo-relevance feedback through the graph's entity layer; the evidence is in bench/bridge_feedback.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import sparse

from graphwire.core.names import normalise_name


@dataclass(frozen=True)
class BridgeEntity:
    index: int  # in the entity layer
    name: str
    documents: int  # distinct documents among the top chunks that mention it


def bridge_entity(
    question: str,
    chunk_entities: Sequence[Sequence[int]],
    document_ids: Sequence[str],
    entity_names: Sequence[str],
) -> BridgeEntity | None:
    """The entity of the top chunks mentioned by the most documents, then highest in the ranking (sum of 1/rank),
    among those two or more documents mention and the question does not name. `chunk_entities` and `document_ids`:
    the entities and document of each top chunk, best first."""
    asked = f" {normalise_name(question, drop_suffix=False)} "
    documents: dict[int, set[str]] = defaultdict(set)
    weight: dict[int, float] = defaultdict(float)
    for rank, (entities, document) in enumerate(zip(chunk_entities, document_ids, strict=True), start=1):
        for entity in entities:
            documents[entity].add(document)
            weight[entity] += 1.0 / rank
    candidates = []
    for entity, seen in documents.items():
        name = normalise_name(entity_names[entity], drop_suffix=False)
        if len(seen) >= 2 and name and f" {name} " not in asked:
            candidates.append((len(seen) + weight[entity], entity_names[entity], entity))
    if not candidates:
        return None
    _, name, entity = max(candidates)
    return BridgeEntity(entity, name, len(documents[entity]))


def entities_of(mentions: sparse.csr_matrix, walk_rows: Sequence[int]) -> list[list[int]]:
    """The entities each chunk mentions (rows of the entity layer's chunk x entity matrix; -1: a chunk the graph
    lacks, which mentions nothing)."""
    return [mentions.indices[mentions.indptr[r] : mentions.indptr[r + 1]].tolist() if r >= 0 else [] for r in walk_rows]
