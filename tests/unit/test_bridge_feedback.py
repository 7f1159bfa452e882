"""Bridge feedback's pure parts: which entity of a first ranking is the bridge, and how its signal ranks chunks."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from graphwire.retrieval.bridge import bridge_entity, entities_of
from graphwire.retrieval.flat.fusion import ranks_of_scored

NAMES = ["Kestrel Motors", "Quarrow Minerals", "Brightcell Energy", "TechCrunch"]


def test_the_bridge_is_what_two_documents_mention_and_the_question_does_not_name() -> None:
    question = "Which company, reported by TechCrunch, supplies the battery maker that sells to Kestrel Motors?"
    # best first: chunk entities and documents of the top chunks
    entities = [[0, 2], [0, 1], [2, 3], [1]]
    documents = ["a", "a", "b", "c"]
    bridge = bridge_entity(question, entities, documents, NAMES)
    # Kestrel Motors (two chunks, one document) is named; TechCrunch one document; Brightcell and Quarrow two each
    assert bridge is not None and bridge.name == "Brightcell Energy" and bridge.documents == 2  # 1/1 + 1/3 > 1/2 + 1/4
    assert bridge_entity(question, entities, ["a", "a", "a", "a"], NAMES) is None  # one document: nothing bridges
    assert bridge_entity("Who supplies Brightcell Energy and Quarrow Minerals?", entities, documents, NAMES) is None


def test_more_documents_beat_a_higher_place() -> None:
    entities = [[0], [1], [1], [1], [0]]
    bridge = bridge_entity("Who is it?", entities, ["a", "b", "c", "d", "e"], NAMES)
    assert bridge is not None and bridge.name == "Quarrow Minerals" and bridge.documents == 3


def test_entities_of_reads_rows_and_a_chunk_the_graph_lacks_mentions_nothing() -> None:
    mentions = sparse.csr_matrix(np.array([[1, 0, 2], [0, 0, 0], [0, 3, 0]]))
    assert entities_of(mentions, [2, -1, 0, 1]) == [[1], [], [0, 2], []]


def test_only_scored_chunks_get_a_rank_ties_going_to_the_base_ranking() -> None:
    signal = np.array([0.0, 2.0, 5.0, 2.0])
    base = np.array([0.9, 0.01, 0.02, 0.03])
    ranks = ranks_of_scored(signal, base)
    assert ranks[2] == 1 and ranks[3] == 2 and ranks[1] == 3 and np.isinf(ranks[0])
