"""Stage 2's in-memory name search (retrieval/graph/name_search.py) and the matcher's partial and fuzzy tiers on it."""

from __future__ import annotations

import pytest

from graphwire.retrieval.graph.matching import MatchPolicy, TieredMatcher
from graphwire.retrieval.graph.models import Mention, MentionOrigin
from graphwire.retrieval.graph.name_search import NameSearch, one_edit
from graphwire.retrieval.graph.names import build_index
from graphwire.retrieval.models import MatchTier
from graphwire.schema.model import load_schema

NODES = [
    ("Person:sbf", "Sam Bankman-Fried", "Person", ["SBF"], 40),
    ("Organization:ftx", "FTX Trading", "Organization", ["FTX"], 30),
    ("Organization:lumen", "Lumen Laboratories", "Organization", [], 5),
    ("Organization:lumen-east", "Lumen Laboratories East Holdings", "Organization", [], 9),
    ("Publication:verge", "The Verge", "Publication", [], 50),
]


def _search() -> NameSearch:
    search = NameSearch()
    for key, name, _, aliases, mentions in NODES:
        search.add(key, [name, *aliases], mentions)
    return search


def _index():  # type: ignore[no-untyped-def]
    rows = [{"key": k, "name": n, "label": label, "aliases": a, "mentions": m} for k, n, label, a, m in NODES]
    return build_index(rows, [], (5, 0), load_schema())


@pytest.mark.parametrize(
    ("a", "b", "close"),
    [
        ("lumen", "lumen", True),
        ("lumen", "lumin", True),  # substitution
        ("lumen", "lumn", True),  # deletion
        ("lumen", "lumenn", True),  # insertion
        ("lumen", "lmuen", True),  # neighbours swapped
        ("lumen", "lmune", False),
        ("lumen", "lumens2", False),
        ("laboratories", "laborratories", True),
    ],
)
def test_one_edit(a: str, b: str, close: bool) -> None:
    assert one_edit(a, b) is close and one_edit(b, a) is close


def test_a_phrase_is_a_contiguous_run_of_a_surface_shortest_first() -> None:
    search = _search()
    assert search.phrase(["lumen", "laboratories"], 25) == ["Organization:lumen", "Organization:lumen-east"]
    assert search.phrase(["bankman", "fried"], 25) == ["Person:sbf"]
    assert search.phrase(["laboratories", "lumen"], 25) == []  # both words, not as a run
    assert search.phrase(["sbf"], 25) == ["Person:sbf"]  # aliases are surfaces
    assert search.phrase(["lumen", "laboratories"], 1) == ["Organization:lumen"]


def test_fuzzy_needs_every_token_within_one_edit_of_the_same_node() -> None:
    search = _search()
    assert search.fuzzy(["lumen", "laborratories"], 4, 25) == ["Organization:lumen", "Organization:lumen-east"]
    assert search.fuzzy(["bankmn", "fried"], 4, 25) == ["Person:sbf"]
    assert search.fuzzy(["lumen", "fried"], 4, 25) == []  # tokens of two different nodes
    assert search.fuzzy(["ftz"], 4, 25) == []  # shorter than min_chars: exact only
    assert search.fuzzy(["ftz"], 3, 25) == ["Organization:ftx"]


def test_fewer_edits_rank_first() -> None:
    search = NameSearch()
    search.add("a", ["Marlow Street"], 1)
    search.add("b", ["Marlo Street"], 100)
    assert search.fuzzy(["marlow", "street"], 4, 25) == ["a", "b"]


def test_the_matcher_grades_in_memory_candidates_without_a_graph() -> None:
    index = _index()
    matcher = TieredMatcher(MatchPolicy())
    found = matcher.match_mention(Mention(text="Bankman-Fried", origin=MentionOrigin.SPAN), index)
    assert [(m.name, m.tier) for m in found] == [("Sam Bankman-Fried", MatchTier.SUBSTRING)]
    typo = matcher.match_mention(Mention(text="Lumen Laborratories", origin=MentionOrigin.SPAN), index)
    assert [(m.name, m.tier) for m in typo][0] == ("Lumen Laboratories", MatchTier.FUZZY)
    assert matcher.match_mention(Mention(text="Verge", origin=MentionOrigin.SPAN), index) == []  # outlets: not here
