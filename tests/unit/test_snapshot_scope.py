"""A restricted reader's views without Neo4j: `GraphSnapshot.restricted` equals the snapshot of the readable rows
alone, and `NameIndex.restricted` holds only what they support."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from graphwire.retrieval.graph.names import build_index
from graphwire.retrieval.ppr import EntityRow, GraphSnapshot, MentionRow, RelationRow, build_snapshot
from graphwire.schema.model import load_schema

ENTITIES = [
    EntityRow("P:ann", "Ann", "Person", ("Ann Lee",)),
    EntityRow("F:dune", "Dune", "Film", ("Dune 2",)),
    EntityRow("L:oslo", "Oslo", "Location"),
    EntityRow("O:acme", "Acme", "Organization", ("Acme Corp",)),
    EntityRow("P:bo", "Bo", "Person"),
]
MENTIONS = [
    MentionRow("c1", "F:dune", 2, True, (0, 1)),
    MentionRow("c1", "P:ann", 1, False, (0,)),
    MentionRow("c2", "P:ann", 1, True, (0,)),
    MentionRow("c2", "L:oslo", 1, False, (0, 2)),
    MentionRow("c3", "L:oslo", 1, True, (1,)),
    MentionRow("c3", "O:acme", 3, False, (1,)),
    MentionRow("c4", "O:acme", 1, False, (0,)),
]
RELATIONS = [
    RelationRow("F:dune", "DIRECTED_BY", "P:ann", ("c1",)),
    RelationRow("P:ann", "BORN_IN", "L:oslo", ("c2", "c3")),
    RelationRow("O:acme", "LOCATED_IN", "L:oslo", ("c3",)),
    RelationRow("P:bo", "WORKS_FOR", "O:acme", ("c4",)),
]


def _of_rows(readable: frozenset[str]) -> GraphSnapshot:
    """What build_snapshot makes of the readable rows, with the rule for mentions that recorded no names (those
    rows): aliases only of wholly readable entities."""
    mentions = [m for m in MENTIONS if m.chunk_id in readable]
    relations = [
        r._replace(chunk_ids=tuple(c for c in r.chunk_ids if c in readable))
        for r in RELATIONS
        if set(r.chunk_ids) & readable
    ]
    named = {m.entity_key for m in mentions} | {k for r in relations for k in (r.source_key, r.target_key)}
    unread = {m.entity_key for m in MENTIONS if m.chunk_id not in readable}
    entities = [e._replace(aliases=() if e.key in unread else e.aliases) for e in ENTITIES if e.key in named]
    return build_snapshot(entities, mentions, relations)


def _same(a: GraphSnapshot, b: GraphSnapshot) -> None:
    assert (a.entity_keys, a.entity_names, a.entity_labels, a.entity_aliases) == (
        b.entity_keys, b.entity_names, b.entity_labels, b.entity_aliases,
    )  # fmt: skip
    assert a.chunk_ids == b.chunk_ids and a.rel_types == b.rel_types
    assert a.entity_index == b.entity_index and a.chunk_index == b.chunk_index
    assert a.rel_source.tolist() == b.rel_source.tolist() and a.rel_target.tolist() == b.rel_target.tolist()
    for name in ("mentions", "titles", "rel_chunks", "cooccurrence"):
        left, right = getattr(a, name), getattr(b, name)
        assert isinstance(left, sparse.csr_matrix) and isinstance(right, sparse.csr_matrix)
        np.testing.assert_array_equal(left.toarray(), right.toarray(), err_msg=name)


def test_the_restriction_is_the_snapshot_of_the_readable_rows() -> None:
    whole = build_snapshot(ENTITIES, MENTIONS, RELATIONS)
    for readable in (
        frozenset({"c1", "c2", "c3", "c4"}),
        frozenset({"c1", "c2"}),
        frozenset({"c2", "c4"}),
        frozenset({"c3"}),
        frozenset(),
    ):
        _same(whole.restricted(readable, "s"), _of_rows(readable))


def test_what_only_unreadable_chunks_support_is_gone() -> None:
    scoped = build_snapshot(ENTITIES, MENTIONS, RELATIONS).restricted(frozenset({"c1", "c2"}), "r1")
    assert "P:bo" not in scoped.entity_index and "O:acme" not in scoped.entity_index  # named only in c3, c4
    assert scoped.rel_chunks.toarray().tolist() == [[1.0, 0.0], [0.0, 1.0]]  # BORN_IN keeps c2 alone
    assert scoped.entity_aliases[scoped.entity_index["L:oslo"]] == ()  # c3 also mentions Oslo
    assert scoped.entity_aliases[scoped.entity_index["F:dune"]] == ("Dune 2",)
    assert scoped.fingerprint.endswith("@r1")


def test_the_scoped_name_index_holds_what_the_readable_chunks_support() -> None:
    """Stage 1's index for a restricted reader: its snapshot's entities, mentions counted in its chunks, aliases
    of the snapshot's (here: of wholly readable entities), outlets with a readable document; a version of its own
    (stage 1's cache)."""
    rows = [
        {"key": e.key, "name": e.name, "label": e.label, "aliases": list(e.aliases),
         "mentions": sum(m.entity_key == e.key for m in MENTIONS)}
        for e in ENTITIES
    ]  # fmt: skip
    sources = [{"source": "Ledger", "keys": ["O:acme"]}, {"source": "Circuit", "keys": []}]
    whole = build_index(rows, sources, (3, 1), load_schema())
    scope = build_snapshot(ENTITIES, MENTIONS, RELATIONS).restricted(frozenset({"c1", "c2"}), "r1")
    seen = whole.restricted(scope, frozenset({"Ledger"}), load_schema())
    assert set(seen.nodes) == {"P:ann", "F:dune", "L:oslo"}
    assert seen.nodes["L:oslo"].mentions == 1 and whole.nodes["L:oslo"].mentions == 2
    assert seen.lookup("dune 2") and not seen.lookup("acme corp") and not seen.lookup("bo")
    assert seen.nodes["P:ann"].aliases == ("Ann Lee",) and seen.source_keys == {"Circuit": []}
    assert seen.version[:2] == whole.version and seen.version != whole.version


def test_a_reader_sees_the_aliases_its_readable_chunks_taught() -> None:
    """With the names each mention taught recorded, an alias stays when a readable chunk taught it, however many
    unreadable chunks also mention the entity; an alias only an unreadable chunk taught is gone; the entity's own
    name always stays; an entity with a mention that recorded nothing keeps the wholly-readable rule."""
    entities = [
        EntityRow("L:oslo", "Oslo", "Location", ("Oslo", "Christiania", "Kristiania")),
        EntityRow("P:ann", "Ann", "Person", ("Ann Lee",)),
    ]
    mentions = [
        MentionRow("c1", "L:oslo", names=("oslo",)),
        MentionRow("c2", "L:oslo", names=("christiania",)),
        MentionRow("c3", "L:oslo", names=("kristiania", "oslo")),
        MentionRow("c1", "P:ann", names=("ann lee",)),
        MentionRow("c3", "P:ann"),  # written before names were recorded
    ]
    whole = build_snapshot(entities, mentions, [])
    for readable, oslo, ann in (
        ({"c1", "c2"}, ("Oslo", "Christiania"), ()),
        ({"c1"}, ("Oslo",), ()),
        ({"c2"}, ("Oslo", "Christiania"), None),
        ({"c1", "c2", "c3"}, ("Oslo", "Christiania", "Kristiania"), ("Ann Lee",)),
    ):
        scoped = whole.restricted(frozenset(readable), "s")
        assert scoped.entity_aliases[scoped.entity_index["L:oslo"]] == oslo
        if ann is None:
            assert "P:ann" not in scoped.entity_index
        else:
            assert scoped.entity_aliases[scoped.entity_index["P:ann"]] == ann
