"""The review queue's pure part (ingest/curation/candidates.py): name signals, blocking and the score."""

from __future__ import annotations

import pytest

from graphwire.ingest.curation import candidates as c
from graphwire.ingest.curation.candidates import Named, named, propose

PERSON = "Person"


def _pairs(*entities: Named) -> dict[tuple[str, str], tuple[float, tuple[str, ...]]]:
    return {(p.a, p.b): (p.strength, p.reasons) for p in propose(entities, PERSON)}


@pytest.mark.parametrize(
    ("x", "y", "signal"),
    [
        ("bankman fried", "sam bankman fried", "surname"),
        ("lee", "jordan lee", "surname"),
        ("j lee", "jordan lee", "initial"),
        ("jordan lee", "j lee", "initial"),
        ("ada lee", "jordan lee", None),  # namesakes
        ("ada lee", "ada park", None),
        ("ada lee", "ada lee", None),
    ],
)
def test_person_signal(x: str, y: str, signal: str | None) -> None:
    assert c.person_signal(x, y) == signal


def test_acronym_drops_small_words_and_needs_two_words() -> None:
    assert c.acronym("international monetary fund") == "imf"
    assert c.acronym("bank of england") == "be"
    assert c.acronym("oslo") == ""


def test_similar_names_and_numbers() -> None:
    assert c.similar("lumen labs", "lumen lab") >= c.SIMILAR_MIN
    assert c.similar("lumen labs", "lumen labs europe") == round(2 / 3, 3)  # by word overlap
    assert c.similar("oslo", "oslo minnesota") == 0.0  # one word of two in common is not enough
    assert c.similar("iphone 14", "iphone 15") == 0.0
    assert c.similar("kestrel motors", "quarrow minerals") == 0.0


def test_score_formula() -> None:
    assert c.score(1.0, 0) == 0.7
    assert c.score(0.8, 1) == round(0.7 * 0.8 + 0.1, 3)
    assert c.score(0.9, 10) == c.score(0.9, 3) == round(0.63 + 0.3, 3)


def test_planted_duplicates_are_proposed_and_namesakes_are_not() -> None:
    found = _pairs(
        named("Person:sam bankman fried", PERSON, "Sam Bankman-Fried", []),
        named("Person:bankman fried", PERSON, "Bankman-Fried", []),
        named("Person:sbf", PERSON, "SBF", []),
        named("Organization:international monetary fund", "Organization", "International Monetary Fund", []),
        named("Organization:imf", "Organization", "IMF", []),
        named("Location:oslo", "Location", "Oslo", []),
        named("Person:oslo", PERSON, "Oslo", []),
        named("Person:ada lee", PERSON, "Ada Lee", []),
        named("Person:jordan lee", PERSON, "Jordan Lee", []),
        named("Organization:lumen labs", "Organization", "Lumen Labs", []),
        named("Organization:lumen lab", "Organization", "Lumen Lab", []),
    )
    assert found[("Person:bankman fried", "Person:sam bankman fried")] == (0.8, ("surname",))
    assert found[("Person:sam bankman fried", "Person:sbf")] == (0.9, ("acronym 'sbf'",))
    assert found[("Organization:imf", "Organization:international monetary fund")][0] == 0.9
    assert found[("Location:oslo", "Person:oslo")] == (1.0, ("same-name across Location/Person",))
    assert found[("Organization:lumen lab", "Organization:lumen labs")][0] >= c.SIMILAR_MIN
    assert ("Person:ada lee", "Person:jordan lee") not in found
    assert not any("oslo" in a and "imf" in b for a, b in found)
    assert len(found) == 5


def test_shared_aliases_rejected_pairs_focus_and_order() -> None:
    entities = [
        named("Person:sam bankman fried", PERSON, "Sam Bankman-Fried", ["Bankman-Fried"]),
        named("Person:bankman fried", PERSON, "Bankman-Fried", []),
        named("Organization:imf", "Organization", "IMF", []),
        named("Organization:international monetary fund", "Organization", "International Monetary Fund", []),
    ]
    found = propose(entities, PERSON)
    assert [(p.a, p.strength) for p in found] == [("Person:bankman fried", 1.0), ("Organization:imf", 0.9)]
    assert set(found[0].reasons) == {"same-name", "surname"}  # both signals, the strongest counts
    rejected = {("Person:bankman fried", "Person:sam bankman fried")}
    assert [p.a for p in propose(entities, PERSON, rejected)] == ["Organization:imf"]
    assert [p.a for p in propose(entities, PERSON, focus="Person:bankman fried")] == ["Person:bankman fried"]
    assert propose(list(reversed(entities)), PERSON) == found  # deterministic whatever the read order


def test_a_huge_similarity_block_is_skipped_but_exact_names_are_not() -> None:
    """Names sharing only the word "new" are never compared (their block is too big); an exact twin still is."""
    crowd = [named(f"Organization:new {w}", "Organization", f"New {w}", []) for w in _words(c.BLOCK_CAP + 1)]
    crowd[1] = named("Organization:new thing 1", "Organization", "New Thing 1", [])
    twin = named("Location:new thing 1", "Location", "New Thing 1", [])
    assert len(c.blocks(crowd, PERSON)["first:Organization:new"]) > c.BLOCK_CAP
    found = propose([*crowd, twin], PERSON)
    assert [(p.a, p.b) for p in found] == [("Location:new thing 1", "Organization:new thing 1")]


def _words(n: int) -> list[str]:
    """`n` distinct made-up words with no digits (so only their block keeps them apart)."""
    letters = "bcdfghjklmnpqrstvwxz"
    return [f"{letters[i % 20]}a{letters[(i // 20) % 20]}o{letters[i // 400]}" for i in range(n)]
