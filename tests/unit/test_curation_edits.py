"""What a merge makes of relationships that become alike (ingest/curation/edits.py), without a database: provenance
lists joined under the cap rules, mention counts added, loops dropped, schema patterns enforced."""

from __future__ import annotations

from typing import Any

import pytest

from graphwire.ingest.curation.edits import Rules, compute
from graphwire.ingest.curation.models import EditError, Merge, NodeState, Relabel, RelState, Snapshot, Split
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.schema.model import load_schema

SCHEMA = load_schema()
ROLES = SCHEMA.roles
RULES = Rules(SCHEMA, ProvenanceCaps.capping(SCHEMA, cap=2))
PERSON, ORG, OUTLET = ROLES.person_label, "Organization", ROLES.publisher_label
A, B, P, OUT = f"{ORG}:acme", f"{ORG}:acme corp x", f"{PERSON}:ada park", f"{OUTLET}:daily"
WORKS = "WORKS_FOR"


def node(key: str, name: str, aliases: list[str] | None = None) -> NodeState:
    label = key.split(":")[0]
    props = {"key": key, "name": name, "label": label, "norm": key.split(":")[1], "aliases": aliases or [name]}
    return NodeState(key=key, labels=["Entity", label], props=props)


def rel(source: str, rel_type: str, target: str, **props: Any) -> RelState:
    start_kind = "Chunk" if not source.count(":") else "Entity"
    return RelState(
        type=rel_type, start_kind=start_kind, start_id=source, end_kind="Entity", end_id=target, props=props
    )


def test_a_merge_joins_provenance_under_the_cap_and_adds_mentions() -> None:
    before = Snapshot(
        nodes=[node(A, "Acme"), node(B, "Acme Corp X"), node(P, "Ada Park"), node(OUT, "Daily")],
        rels=[
            rel(P, WORKS, A, chunk_ids=["c1"], evidence=["Ada works at Acme."], extractor="offline"),
            rel(P, WORKS, B, chunk_ids=["c2", "c1"], evidence=["Ada joined Acme Corp X.", ""], extractor="offline"),
            rel(A, ROLES.reported_by_type, OUT, chunk_ids=["c5", "c9"], evidence=["", ""]),
            rel(B, ROLES.reported_by_type, OUT, chunk_ids=["c1", "c7"], evidence=["", "Daily reported it."]),
            rel(B, "COMPETES_WITH", A, chunk_ids=["c3"], evidence=["They compete."]),
            rel("c1", "MENTIONS", A, count=1, sentences=[0], linked=True),
            rel("c1", "MENTIONS", B, count=2, sentences=[2, 0]),
        ],
    )
    after = compute(Merge(survivor=A, merged=B), before, RULES)
    assert [n.key for n in after.nodes] == sorted([A, OUT, P])
    survivor = after.node(A)
    assert survivor is not None and survivor.props["aliases"] == ["Acme", "Acme Corp X"]
    by_type = {(r.type, r.start_id): r.props for r in after.rels}
    assert by_type[(WORKS, P)]["chunk_ids"] == ["c1", "c2"]
    assert by_type[(WORKS, P)]["evidence"] == ["Ada works at Acme.", "Ada joined Acme Corp X."]
    # capped type: the stated chunk stays, the two smallest implied ids are kept, sorted
    reported = by_type[(ROLES.reported_by_type, A)]
    assert (reported["chunk_ids"], reported["evidence"]) == (["c1", "c5", "c7"], ["", "", "Daily reported it."])
    assert by_type[("MENTIONS", "c1")] == {"count": 3, "sentences": [0, 2]}  # the tagger found it in one: not linked
    assert "COMPETES_WITH" not in {r.type for r in after.rels}  # it would be a loop


def test_merging_across_labels_the_patterns_forbid_is_refused() -> None:
    before = Snapshot(
        nodes=[node(A, "Acme"), node(P, "Ada Park"), node(f"{PERSON}:bo li", "Bo Li")],
        rels=[rel(f"{PERSON}:bo li", WORKS, P, chunk_ids=["c1"], evidence=["x"])],
    )
    with pytest.raises(EditError, match="schema forbids"):
        compute(Merge(survivor=P, merged=A), before, RULES)
    with pytest.raises(EditError, match="into itself"):
        compute(Merge(survivor=A, merged=A), before, RULES)
    with pytest.raises(EditError, match="schema forbids"):
        compute(Relabel(key=P, label="Location"), before, RULES)


def test_a_split_moves_the_chosen_mentions_and_divides_provenance() -> None:
    before = Snapshot(
        nodes=[node(A, "Acme"), node(P, "Ada Park")],
        rels=[
            rel(P, WORKS, A, chunk_ids=["c1", "c2"], evidence=["Ada works at Acme.", "Ada left Acme."]),
            rel(A, "COMPETES_WITH", f"{ORG}:bolt", chunk_ids=["c2"], evidence=["Acme rivals Bolt."]),
            rel(A, "LOCATED_IN", "Location:oslo", chunk_ids=["c1"], evidence=["Acme, of Oslo."]),
            rel("c1", "MENTIONS", A, count=1, sentences=[0]),
            rel("c2", "MENTIONS", A, count=2, sentences=[1]),
        ],
    )
    after = compute(Split(key=A, name="Acme Two", chunks=["c2"]), before, RULES, frozenset({"c2"}))
    new = f"{ORG}:acme two"
    assert [n.key for n in after.nodes] == sorted([A, new, P])
    rels = {(r.start_id, r.type, r.end_id): r.props for r in after.rels}
    assert rels[(P, WORKS, A)] == {"chunk_ids": ["c1"], "evidence": ["Ada works at Acme."]}  # provenance divided
    assert rels[(P, WORKS, new)] == {"chunk_ids": ["c2"], "evidence": ["Ada left Acme."]}
    assert (new, "COMPETES_WITH", f"{ORG}:bolt") in rels and (A, "COMPETES_WITH", f"{ORG}:bolt") not in rels
    assert (A, "LOCATED_IN", "Location:oslo") in rels  # supported only outside the chosen chunks: stays
    assert ("c2", "MENTIONS", new) in rels and ("c1", "MENTIONS", A) in rels and ("c2", "MENTIONS", A) not in rels
    with pytest.raises(EditError, match="rename it instead"):
        compute(Split(key=A, name="Acme Two", chunks=["c1", "c2"]), before, RULES, frozenset({"c1", "c2"}))


def test_a_merge_joins_the_names_mentions_taught_and_forgets_them_when_one_side_never_recorded_any() -> None:
    before = Snapshot(
        nodes=[node(A, "Acme"), node(B, "Acme Corp X")],
        rels=[
            rel("c1", "MENTIONS", A, count=1, sentences=[0], names=["acme"]),
            rel("c1", "MENTIONS", B, count=1, sentences=[1], names=["acme corp x"]),
            rel("c2", "MENTIONS", A, count=1, sentences=[0], names=["acme"]),
            rel("c2", "MENTIONS", B, count=1, sentences=[1]),  # written before names were recorded
        ],
    )
    after = compute(Merge(survivor=A, merged=B), before, RULES)
    props = {r.start_id: r.props for r in after.rels}
    assert props["c1"]["names"] == ["acme", "acme corp x"]
    assert "names" not in props["c2"]
