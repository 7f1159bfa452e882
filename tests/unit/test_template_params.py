"""Stage 3's statement parameters keep one type: a list of names is never empty (Neo4j plans a statement once per
parameter type, and an empty list is typed apart from a list of strings)."""

from __future__ import annotations

from typing import Any, cast

from graphwire.core.clients.graph import Graph
from graphwire.retrieval.graph.chunks import ChunkCache
from graphwire.retrieval.graph.templates import NO_NAME, TemplateRunner, names
from graphwire.retrieval.models import EntityMatch, MatchTier

RUNNER = TemplateRunner(cast(Graph, None), chunks=cast(ChunkCache, object()), publisher="Publication")
SHARED: dict[str, Any] = {"keys": [NO_NAME], "sources": [NO_NAME], "windows": [], "lists": None}


def _match(key: str, label: str) -> EntityMatch:
    return EntityMatch(mention=key, key=key, name=key, label=label, tier=MatchTier.EXACT, score=1.0)


def test_names_stand_in_a_name_that_matches_nothing_for_none() -> None:
    assert names([]) == [NO_NAME] and names(x for x in ()) == [NO_NAME]
    assert names(["a", "b"]) == ["a", "b"]
    assert not NO_NAME.isprintable()  # a control character: no key or source is one


def test_candidate_lists_are_never_empty_and_keep_what_was_matched() -> None:
    only_entity = RUNNER.candidates_params(SHARED, [_match("person:ada", "Person")], [])
    assert only_entity["entity_keys"] == ["person:ada"]
    assert only_entity["publication_keys"] == [NO_NAME] and only_entity["publication_sources"] == [NO_NAME]
    outlet = RUNNER.candidates_params(SHARED, [_match("publication:the-verge", "Publication")], ["The Verge"])
    assert outlet["entity_keys"] == [NO_NAME]
    assert outlet["publication_keys"] == ["publication:the-verge"] and outlet["publication_sources"] == ["The Verge"]
    for params in (only_entity, outlet):
        assert all(value for value in params.values() if isinstance(value, list) and value is not params["windows"])
