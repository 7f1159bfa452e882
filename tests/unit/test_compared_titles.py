"""joint's title signals (retrieval/alignment.py): a question that compares two or more things it names, each a
document's subject, ranks each one's own page; other questions and a single titled seed add nothing. A passage links
to the pages whose title entity it mentions (the `linked` signal), other than its own name's."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import numpy as np

from graphwire.retrieval.alignment import Alignment, compared_titles
from graphwire.retrieval.ppr.snapshot import EntityRow, MentionRow, build_snapshot
from graphwire.retrieval.question import QuestionSignals

SNAP = build_snapshot(
    [
        EntityRow("Person:marta venn", "Marta Venn", "Person"),
        EntityRow("Person:ola brandt", "Ola Brandt", "Person"),
        EntityRow("Group:the tides", "The Tides", "Group"),
    ],
    [
        MentionRow("p-venn", "Person:marta venn", 1, True),
        MentionRow("p-brandt", "Person:ola brandt", 1, True),
        MentionRow("p-tides", "Group:the tides", 1, True),
        MentionRow("p-tides", "Person:marta venn", 3),  # the band's page names both members, often
        MentionRow("p-tides", "Person:ola brandt", 2),
    ],
    [],
)
VENN, BRANDT, TIDES = (SNAP.entity_index[k] for k in ("Person:marta venn", "Person:ola brandt", "Group:the tides"))
FLAT_ORDER = ["p-tides", "p-brandt", "other", "p-venn"]  # the flat index's own order, with a chunk the graph lacks


def _alignment() -> Alignment:
    flat = SimpleNamespace(chunks=[SimpleNamespace(id=cid) for cid in FLAT_ORDER])
    return Alignment.of(cast(Any, flat), SNAP)


def _signals(question: str, **cues: Any) -> QuestionSignals:
    return QuestionSignals(question=question, **cues)


def test_a_comparing_question_ranks_each_compared_things_own_page() -> None:
    seeds = {VENN: 1.0, BRANDT: 0.9}
    for signals in (
        _signals("Are Marta Venn and Ola Brandt members of the same band?", yes_no=True, comparison_cues=["same"]),
        _signals("Who was born first, Marta Venn or Ola Brandt?"),  # a choice between them
    ):
        titled = compared_titles(signals, SNAP, seeds)
        assert titled == seeds
        scores = _alignment().titled_by(titled)
        # each page scored by its seed's weight, in the flat index's positions; the band's page is not theirs
        assert scores.tolist() == [0.0, 0.9, 0.0, 1.0]


def test_no_title_signal_without_a_comparison_or_with_one_titled_seed() -> None:
    bridge = _signals("Which band did Marta Venn found with the singer Ola Brandt?")
    assert compared_titles(bridge, SNAP, {VENN: 1.0, BRANDT: 1.0}) == {}
    comparing = _signals("Is Marta Venn older than the drummer of her band?", yes_no=True)
    assert compared_titles(comparing, SNAP, {VENN: 1.0}) == {}
    assert not np.any(_alignment().titled_by({}))


def test_the_alignment_maps_flat_positions_and_skips_chunks_one_side_lacks() -> None:
    alignment = _alignment()
    assert [alignment.walk_of_flat[i] >= 0 for i in range(4)] == [True, True, False, True]
    for position, walk_row in enumerate(alignment.walk_of_flat):
        if walk_row >= 0:
            assert SNAP.chunk_ids[walk_row] == FLAT_ORDER[position]
    assert alignment.titled_by({TIDES: 0.5}).tolist() == [0.5, 0.0, 0.0, 0.0]


def test_a_passage_links_to_the_pages_whose_title_entity_it_mentions() -> None:
    alignment = _alignment()
    # the band's page names both members: their pages (and itself) are where it sends a reader next
    assert alignment.linked_from(np.array([0])).tolist() == [1.0, 1.0, 0.0, 1.0]
    assert not alignment.linked_from(np.array([3])).any()  # Venn's page names only her: it links nowhere
    assert not alignment.linked_from(np.array([2])).any()  # a chunk the graph lacks links nowhere


def test_the_rest_of_a_passages_own_document_is_not_a_link() -> None:
    # a two-chunk article titled by one entity (a news headline read as an entity) that names it in both chunks
    snap = build_snapshot(
        [EntityRow("Person:headline", "Headline", "Person"), EntityRow("Person:ola brandt", "Ola Brandt", "Person")],
        [
            MentionRow("a-1", "Person:headline", 1, True),
            MentionRow("a-2", "Person:headline", 1, True),
            MentionRow("a-1", "Person:ola brandt", 1),
            MentionRow("p-brandt", "Person:ola brandt", 1, True),
        ],
        [],
    )
    flat = SimpleNamespace(chunks=[SimpleNamespace(id=cid) for cid in ["a-1", "a-2", "p-brandt"]])
    alignment = Alignment.of(cast(Any, flat), snap)
    assert alignment.linked_from(np.array([0])).tolist() == [1.0, 0.0, 1.0]


def test_a_page_naming_itself_does_not_link_to_another_page_of_that_name() -> None:
    # the novel's page says "The Glass Harbor" (its own name, the film's title): a mention of itself, not of the film
    snap = build_snapshot(
        [
            EntityRow("Work:the glass harbor (novel)", "The Glass Harbor (novel)", "Work", ("The Glass Harbor",)),
            EntityRow("Work:the glass harbor", "The Glass Harbor", "Work"),
            EntityRow("Person:renata osei", "Renata Osei", "Person"),
        ],
        [
            MentionRow("p-novel", "Work:the glass harbor (novel)", 1, True),
            MentionRow("p-novel", "Work:the glass harbor", 2),
            MentionRow("p-novel", "Person:renata osei", 1),
            MentionRow("p-film", "Work:the glass harbor", 1, True),
            MentionRow("p-osei", "Person:renata osei", 1, True),
        ],
        [],
    )
    flat = SimpleNamespace(chunks=[SimpleNamespace(id=cid) for cid in ["p-novel", "p-film", "p-osei"]])
    alignment = Alignment.of(cast(Any, flat), snap)
    assert alignment.linked_from(np.array([0])).tolist() == [1.0, 0.0, 1.0]  # the author's page, not the film's
    assert not alignment.linked_from(np.array([1])).any()  # the film's page names only itself
