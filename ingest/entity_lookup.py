"""What a run reads of the entities the graph already holds: only those its own names can resolve to or link.

Every entity carries three lookup properties, written with it (`lookup_properties`):

- `resolve_keys`: `<Label>|<normalised name>` for its name and each alias the resolver indexes (ingest/resolve.py);
- `link_keys`: the label-free normalised form of its name and aliases, what the dictionary linker matches
  (ingest/linking.py);
- `fuzzy_key`: `<Label>|<length>|<initials>` of its normalised name, the only entities a fuzzy match can pick.

The first two sit in the `entity_lookup` full-text index with the keyword analyzer (one term per whole value, exact
and case-sensitive; Neo4j's range indexes cannot look into lists), `fuzzy_key` in a range index. A batch asks for the
keys of its own names in a few queries of at most MAX_CLAUSES terms each, so a small run into a large graph reads a
few rows instead of every entity. Graphs an older graphwire wrote get the properties once (`migrate`), recorded on
the store's version node.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.names import label_norm, normalise_name
from graphwire.schema.roles import SchemaRoles

Row = dict[str, Any]

LOOKUP_FORMAT = 1  # bump when the lookup properties change meaning: older stores are migrated again
MAX_CLAUSES = 1000  # terms per full-text query (Lucene refuses more than 1,024)
MIGRATE_PAGE = 5000
MIN_FUZZY_CHARS = 6  # names shorter than this never fuzzy-match (ingest/resolve.py)
FUZZY_RATIO = 0.85  # a ratio above the threshold needs lengths within about 15%


def resolve_key(label: str, norm: str) -> str:
    return f"{label}|{norm}"


def signature(norm: str) -> str:
    """First letter of every word. Typos rarely change it; different names often differ only there
    ("ada b park" / "ada c park", "ember labs" / "umber labs"), so a fuzzy merge needs the same initials."""
    return "".join(word[0] for word in norm.split())


def fuzzy_key(label: str, norm: str) -> str:
    """The bucket of a name for fuzzy matching: label, length and initials (the graph's `fuzzy_key` property, and the
    resolver's in-memory buckets)."""
    return _shape(label, len(norm), signature(norm))


def fuzzy_keys_for(label: str, norm: str) -> list[str]:
    """The buckets a fuzzy match for this name may pick from (none for short names): same label and initials, a
    length within the band a ratio above the threshold allows."""
    if len(norm) < MIN_FUZZY_CHARS:
        return []
    initials = signature(norm)
    band = range(int(len(norm) * FUZZY_RATIO), int(len(norm) / FUZZY_RATIO) + 2)
    return [_shape(label, size, initials) for size in band]


def _shape(label: str, size: int, initials: str) -> str:
    return f"{label}|{size}|{initials}"


def indexes_alias(label: str, name: str, alias: str, roles: SchemaRoles) -> bool:
    """Whether an alias is a lookup key of its entity: not a lone surname of a full person name ("Park" alone must not
    mean Ada Park everywhere)."""
    return not (label == roles.person_label and " " in name and " " not in alias.strip())


def lookup_properties(label: str, name: str, norm: str, aliases: Iterable[str], roles: SchemaRoles) -> Row:
    """The lookup properties of one entity."""
    aliases = list(aliases)
    resolve = [resolve_key(label, norm)]
    resolve += [
        resolve_key(label, label_norm(a, label, roles)) for a in aliases if indexes_alias(label, name, a, roles)
    ]
    link = [normalise_name(surface) for surface in (name, *aliases)]
    return {
        "resolve_keys": sorted({k for k in resolve if not k.endswith("|")}),
        "link_keys": sorted({k for k in link if k}),
        "fuzzy_key": fuzzy_key(label, norm),
    }


def _phrase(field: str, value: str) -> str:
    """One exact term of a Lucene query; normalised names have no quote or backslash, but escape them anyway."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'{field}:"{escaped}"'


def lucene_queries(field: str, values: Iterable[str]) -> list[str]:
    """OR-queries of at most MAX_CLAUSES exact terms covering `values`."""
    terms = [_phrase(field, v) for v in sorted(set(values)) if v]
    return [" OR ".join(terms[i : i + MAX_CLAUSES]) for i in range(0, len(terms), MAX_CLAUSES)]


@dataclass
class StoredEntities:
    """Reads stored entities by lookup key, and counts the rows it read (`rows_read`)."""

    graph: Graph
    rows_read: int = 0

    def count(self) -> int:
        rows = self.graph.read("ingest/count_entities")
        return int(rows[0]["entities"]) if rows else 0

    def by_names(self, resolve_keys: Sequence[str], fuzzy_keys: Sequence[str]) -> list[Row]:
        """Entities one of `resolve_keys` names (name or alias), and the fuzzy candidates of `fuzzy_keys`."""
        keys = [k.replace("|", ":", 1) for k in resolve_keys]  # an entity's key is `<Label>:<norm>`
        rows = self.graph.read("ingest/entities_by_keys", keys=keys, fuzzy_keys=list(fuzzy_keys)) if keys else []
        rows += self._by_lookup("resolve_keys", resolve_keys)
        return self._counted(rows)

    def by_surfaces(self, surfaces: Iterable[str]) -> list[Row]:
        """Entities whose name or an alias normalises to one of `surfaces` (label-free)."""
        return self._counted(self._by_lookup("link_keys", surfaces))

    def all(self) -> list[Row]:
        return self._counted(self.graph.read("ingest/existing_entities"))

    def _by_lookup(self, field: str, values: Iterable[str]) -> list[Row]:
        rows: list[Row] = []
        for query in lucene_queries(field, values):
            rows += self.graph.read("ingest/entities_by_lookup", query=query)
        return rows

    def _counted(self, rows: list[Row]) -> list[Row]:
        unique = list({str(r["key"]): r for r in rows}.values())
        self.rows_read += len(unique)
        return sorted(unique, key=lambda r: str(r["key"]))


def migrate(graph: Graph, roles: SchemaRoles) -> int:
    """Give the entities of a store an older graphwire wrote their lookup properties (once per store); returns how many
    were updated."""
    rows = graph.read("ingest/lookup_format")
    if rows and rows[0]["format"] == LOOKUP_FORMAT:
        return 0
    updated, after = 0, ""
    while page := graph.read("ingest/entities_page", after=after, limit=MIGRATE_PAGE):
        updated += _fill(graph, page, roles)
        after = str(page[-1]["key"])
    graph.write("ingest/mark_lookup_format", format=LOOKUP_FORMAT)
    return updated


def missing_lookup(graph: Graph, limit: int) -> list[str]:
    """Keys of entities without lookup properties (`db check`)."""
    return [str(r["key"]) for r in graph.read("store/entities_without_lookup", limit=limit)]


def repair_lookup(graph: Graph, roles: SchemaRoles) -> int:
    """Give every entity without lookup properties its own (`db check --repair`); returns how many."""
    repaired = 0
    while page := graph.read("store/entities_without_lookup", limit=MIGRATE_PAGE):
        repaired += _fill(graph, page, roles)
    return repaired


def _fill(graph: Graph, entities: list[Row], roles: SchemaRoles) -> int:
    rows = [{"key": r["key"], **lookup_properties(r["label"], r["name"], r["norm"], r["aliases"] or [], roles)}
            for r in entities]  # fmt: skip
    graph.write("ingest/set_entity_lookup", rows=rows)
    return len(rows)
