"""Stage 3's statement parameters keep one type: a list of names is never empty (Neo4j plans a statement once per
parameter type, and an empty list is typed apart from a list of strings)."""

from __future__ import annotations

from typing import Any, cast

from graphwire.core.clients.graph import Graph
from graphwire.retrieval.graph.chunks import ChunkCache
from graphwire.retrieval.graph.models import RawFact
from graphwire.retrieval.graph.templates import NO_NAME, TemplateRunner, names, on_chain
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


def _fact(subject: str, relationship: str, obj: str) -> RawFact:
    return RawFact(subject=subject, subject_key=subject, subject_label="Entity", relationship=relationship,
                   object=obj, object_key=obj, object_label="Entity", chunk_ids=["c"])  # fmt: skip


def test_the_chain_runs_from_the_questions_entities_through_the_asked_types_only() -> None:
    """For the chief executive of the company that acquired X, X's acquirer and its chief executive are on the chain;
    the acquirer's city (reached by a relationship the question does not ask about) and what lies past it are not."""
    facts = [_fact("person", "CEO_OF", "acquirer"), _fact("acquirer", "ACQUIRED", "x"),
             _fact("acquirer", "LOCATED_IN", "city"), _fact("rival", "LOCATED_IN", "city"),
             _fact("other", "CEO_OF", "rival")]  # fmt: skip
    assert on_chain({"x"}, facts, {"ACQUIRED", "CEO_OF"}) == {"x", "acquirer", "person"}
    assert on_chain({"x"}, facts, {"LOCATED_IN"}) == {"x"}
    assert on_chain({"x"}, facts, set()) == {"x"}
