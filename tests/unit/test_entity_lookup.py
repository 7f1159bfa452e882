"""The lookup properties behind lazy entity loads, the queries built from them, and the resolver reading through
them only what a batch names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphwire.ingest.entity_lookup import (
    MAX_CLAUSES,
    fuzzy_key,
    fuzzy_keys_for,
    lookup_properties,
    lucene_queries,
)
from graphwire.ingest.linking import MAX_SPAN_WORDS, _tokens, word_spans
from graphwire.ingest.resolve import EntityResolver
from graphwire.schema.model import load_schema


def test_lookup_properties_key_every_indexed_alias_and_skip_a_lone_surname() -> None:
    props = lookup_properties("Person", "Ada Park", "ada park", ["Ada Park", "Park", "A. Park"], load_schema().roles)
    assert props["resolve_keys"] == ["Person|a park", "Person|ada park"]  # "Park" alone would mean Ada Park anywhere
    assert props["link_keys"] == ["a park", "ada park", "park"]
    assert props["fuzzy_key"] == "Person|8|ap"


def test_fuzzy_keys_cover_the_length_band_and_short_names_have_none() -> None:
    keys = fuzzy_keys_for("Organization", "vantor dynamics")
    assert fuzzy_key("Organization", "vantor dynamix") in keys  # one letter off: same band and initials
    assert fuzzy_key("Organization", "wantor dynamics") not in keys  # other initials never merge
    assert fuzzy_keys_for("Organization", "lumen") == []


def test_lucene_queries_split_at_the_clause_limit_and_escape_quotes() -> None:
    queries = lucene_queries("link_keys", [f"name {i}" for i in range(MAX_CLAUSES + 5)])
    assert len(queries) == 2 and queries[0].count(" OR ") == MAX_CLAUSES - 1
    assert lucene_queries("link_keys", ['say "hi"']) == ['link_keys:"say \\"hi\\""']
    assert lucene_queries("link_keys", ["", ""]) == []


def test_word_spans_are_every_run_of_words_up_to_the_longest_name() -> None:
    spans = word_spans([_tokens("Ada Park joined Lumen Labs in 2024.")])
    assert {"ada park", "lumen labs", "ada park joined lumen labs"} <= spans
    assert "2024" not in spans and "in" not in spans  # numbers and too-short spans are never names
    long_text = " ".join(f"w{i:02d}" for i in range(20))
    assert max(s.count(" ") + 1 for s in word_spans([_tokens(long_text)])) == MAX_SPAN_WORDS


class _Source:
    """Stored entities answered by lookup key, as the graph's indexes would, recording what was asked."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.asked: list[tuple[list[str], list[str]]] = []

    def by_names(self, resolve_keys: Sequence[str], fuzzy_keys: Sequence[str]) -> list[dict[str, Any]]:
        self.asked.append((list(resolve_keys), list(fuzzy_keys)))
        found = []
        for row in self.rows:
            props = lookup_properties(row["label"], row["name"], row["norm"], row["aliases"], load_schema().roles)
            if set(props["resolve_keys"]) & set(resolve_keys) or props["fuzzy_key"] in fuzzy_keys:
                found.append(row)
        return found


STORED = [
    {"key": "Organization:lumen laboratories", "label": "Organization", "name": "Lumen Laboratories",
     "norm": "lumen laboratories", "aliases": ["Lumen Laboratories", "Lumen Labs"]},
    {"key": "Person:ada park", "label": "Person", "name": "Ada Park", "norm": "ada park", "aliases": ["Ada Park"]},
]  # fmt: skip


def test_prefetch_reads_only_what_the_names_reach_and_resolves_like_a_full_load() -> None:
    source = _Source(STORED)
    lazy = EntityResolver(source=source, schema=load_schema())
    names = [("Lumen Labs", "Organization"), ("Lumen Laborratories", "Organization"), ("Bo Chen", "Person")]
    lazy.prefetch(names)
    assert lazy.stored == {"Organization:lumen laboratories"}  # Ada Park is not named: not read
    eager = EntityResolver(schema=load_schema())
    eager.load(STORED)
    for name, label in names:
        assert lazy.resolve(name, label) == eager.resolve(name, label)
    lazy.prefetch(names)
    assert len(source.asked) == 1  # names resolved before are not asked again


def test_a_fuzzy_match_needs_the_same_initials_even_when_another_name_scores_higher() -> None:
    resolver = EntityResolver(schema=load_schema())
    names = ["Ember Laboratories International", "Umber Laboratores Internationl"]
    resolver.load([{"key": f"Organization:{n.lower()}", "label": "Organization", "name": n, "norm": n.lower(),
                    "aliases": []} for n in names])  # fmt: skip
    match = resolver.resolve("Umber Laboratories International", "Organization")  # Ember scores 96.9, Umber 96.8
    assert match is not None and match.key == "Organization:umber laboratores internationl"
