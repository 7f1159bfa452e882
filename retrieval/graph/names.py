"""The graph's name and alias index, held in memory for stage 1 and refreshed when the graph's entities change."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.names import match_form
from graphwire.core.stores.refresh import Derived, Refreshing
from graphwire.retrieval.graph.name_search import NameSearch
from graphwire.retrieval.graph_version import GraphVersion
from graphwire.retrieval.ppr.export import SnapshotCache
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.retrieval.question import OutletGazetteer
from graphwire.schema.model import GraphSchema


@dataclass(frozen=True)
class NodeRef:
    key: str
    name: str
    label: str
    aliases: tuple[str, ...] = ()
    mentions: int = 0


@dataclass
class NameIndex:
    """Normalised name/alias -> nodes, plus the outlet gazetteer built from the graph's sources and publications
    (the nodes of the schema's `publisher_label`, `publisher`)."""

    gazetteer: OutletGazetteer
    publisher: str
    by_norm: dict[str, list[NodeRef]] = field(default_factory=dict)
    source_keys: dict[str, list[str]] = field(default_factory=dict)  # corpus `source` -> publication node keys
    nodes: dict[str, NodeRef] = field(default_factory=dict)
    token_df: dict[str, int] = field(default_factory=dict)  # token -> how many nodes' names/aliases contain it
    max_tokens: int = 1
    version: tuple[int, ...] = (0, 0, 0)
    search: NameSearch = field(default_factory=NameSearch)  # stage 2's partial and fuzzy candidates

    def lookup(self, norm: str) -> list[NodeRef]:
        return self.by_norm.get(norm, [])

    def sources_of(self, keys: Iterable[str]) -> list[str]:
        """The corpus `source` values whose documents report to these publication nodes, sorted."""
        wanted = set(keys)
        return sorted(source for source, source_keys in self.source_keys.items() if wanted.intersection(source_keys))

    def publication_nodes(self, sources: list[str]) -> list[NodeRef]:
        """The publication nodes behind corpus `source` values (through documents, else by name)."""
        found: dict[str, NodeRef] = {}
        for source in sources:
            keys = self.source_keys.get(source) or [
                n.key for v in name_variants(source) for n in self.lookup(v) if n.label == self.publisher
            ]
            found.update({key: self.nodes[key] for key in keys if key in self.nodes})
        return list(found.values())

    def __len__(self) -> int:
        return len(self.by_norm)

    def restricted(self, snapshot: GraphSnapshot, hidden_sources: frozenset[str], schema: GraphSchema) -> NameIndex:
        """The index of only the entities a restricted reader's snapshot holds (`GraphSnapshot.restricted`: those
        its readable chunks support, with the aliases those chunks taught them), their mentions
        counted in its chunks, and the outlets with a document it may read (retrieval/scope.py)."""
        counts = snapshot.entity_mentions
        rows = [
            {"key": key, "name": node.name, "label": node.label, "aliases": snapshot.entity_aliases[i],
             "mentions": int(counts[i])}
            for i, key in enumerate(snapshot.entity_keys)
            if (node := self.nodes.get(key)) is not None
        ]  # fmt: skip
        sources = [
            {"source": source, "keys": [k for k in keys if k in snapshot.entity_index]}
            for source, keys in self.source_keys.items()
            if source not in hidden_sources
        ]
        tag = int(hashlib.sha256(snapshot.fingerprint.encode()).hexdigest()[:12], 16)
        return build_index(rows, sources, (*self.version, tag), schema)


def name_variants(surface: str) -> set[str]:
    """The normalised surface, and without a leading "the" ("The Verge" is also found as "Verge")."""
    norm = match_form(surface)
    if not norm:
        return set()
    variants = {norm}
    if norm.startswith("the ") and len(norm) > 4:
        variants.add(norm[4:])
    return variants


def build_index(
    rows: Sequence[Mapping[str, Any]],
    sources: Sequence[Mapping[str, Any]],
    version: tuple[int, ...],
    schema: GraphSchema,
) -> NameIndex:
    publisher = schema.roles.publisher_label
    by_norm: dict[str, dict[str, NodeRef]] = defaultdict(dict)
    nodes: dict[str, NodeRef] = {}
    publication_names: set[str] = set()
    search = NameSearch()
    max_tokens = 1
    for row in rows:
        aliases = tuple(str(a) for a in row.get("aliases") or () if a)
        node = NodeRef(
            key=str(row["key"]),
            name=str(row["name"]),
            label=str(row["label"]),
            aliases=aliases,
            mentions=int(row.get("mentions") or 0),
        )
        nodes[node.key] = node
        surfaces = {node.name, *aliases}
        search.add(node.key, surfaces, node.mentions)
        if node.label == publisher:
            publication_names.add(node.name)
        for surface in surfaces:
            for norm in name_variants(surface):
                by_norm[norm][node.key] = node
                max_tokens = max(max_tokens, norm.count(" ") + 1)
    ordered = {norm: sorted(found.values(), key=lambda n: -n.mentions) for norm, found in by_norm.items()}
    # every token of a surface's variants is a token of the surface itself, so the search's postings are its holders
    token_df = {token: len(keys) for token, keys in search.postings.items()}
    source_keys = {str(r["source"]): [str(k) for k in r["keys"] or ()] for r in sources}
    gazetteer = OutletGazetteer([*source_keys, *publication_names], schema=schema)
    return NameIndex(gazetteer, publisher, ordered, source_keys, nodes, token_df, min(max_tokens, 8), version, search)


class NameIndexCache:
    """Loads the index once and rebuilds it when the graph's entity/MENTIONS counts change.

    The counts come from `version` (the process's one `GraphVersion`, shared with the PPR snapshot) or, standalone,
    from a `GraphVersion` of its own that re-reads them at most every `ttl_s` seconds.
    """

    def __init__(
        self, graph: Graph, schema: GraphSchema, ttl_s: float = 10.0, version: GraphVersion | None = None
    ) -> None:
        self.graph = graph
        self.schema = schema
        self.version = version or GraphVersion(graph, check_every_s=ttl_s)
        self._cache: Refreshing[tuple[int, ...], NameIndex] = Refreshing(
            self.version.entities, self._load, 0.0, name="name_index"
        )

    def get(self) -> NameIndex:
        return self._cache.get()

    @property
    def current(self) -> NameIndex | None:
        """The index built last, without building or checking it (None before the first `get`)."""
        return self._cache.current

    def invalidate(self) -> None:
        self._cache.invalidate()

    def _load(self, version: tuple[int, ...]) -> NameIndex:
        entities = self.graph.read("retrieve/entity_names")
        return build_index(entities, self.graph.read("retrieve/publication_sources"), version, self.schema)


class ScopedNames(NameIndexCache):
    """The shared name index as a restricted reader sees it (`NameIndex.restricted` over its scoped snapshot), made
    again when either is rebuilt."""

    def __init__(self, base: NameIndexCache, snapshots: SnapshotCache, hidden_sources: frozenset[str]) -> None:
        self.graph = base.graph
        self.schema = base.schema
        self.version = base.version
        self.base = base
        self.snapshots = snapshots
        self._view: Derived[NameIndex] = Derived(
            lambda shared, snapshot: shared.restricted(snapshot, hidden_sources, self.schema)
        )

    def get(self) -> NameIndex:
        return self._view.of(self.base.get(), self.snapshots.snapshot())

    @property
    def current(self) -> NameIndex | None:
        return self._view.current

    def invalidate(self) -> None:
        self.base.invalidate()
