"""The graph's name and alias index, held in memory for stage 1 and refreshed when the graph's entities change."""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

from core.graph import Graph
from retrieval.graph.text import normalise

PUBLICATION = "Publication"


@dataclass(frozen=True)
class NodeRef:
    key: str
    name: str
    label: str
    aliases: tuple[str, ...] = ()
    mentions: int = 0


@dataclass
class NameIndex:
    """Normalised name/alias -> nodes, plus the publication gazetteer (matched case-sensitively in questions)."""

    by_norm: dict[str, list[NodeRef]] = field(default_factory=dict)
    publication_patterns: list[tuple[re.Pattern[str], NodeRef]] = field(default_factory=list)
    max_tokens: int = 1
    version: tuple[int, int] = (0, 0)

    def lookup(self, norm: str) -> list[NodeRef]:
        return self.by_norm.get(norm, [])

    def __len__(self) -> int:
        return len(self.by_norm)


def name_variants(surface: str) -> set[str]:
    """The normalised surface, and without a leading "the" ("The Verge" is also found as "Verge")."""
    norm = normalise(surface)
    if not norm:
        return set()
    variants = {norm}
    if norm.startswith("the ") and len(norm) > 4:
        variants.add(norm[4:])
    return variants


def build_index(rows: list[dict[str, object]], version: tuple[int, int]) -> NameIndex:
    by_norm: dict[str, dict[str, NodeRef]] = defaultdict(dict)
    publications: dict[str, NodeRef] = {}
    max_tokens = 1
    for row in rows:
        aliases = tuple(str(a) for a in row.get("aliases") or () if a)  # type: ignore[attr-defined]
        node = NodeRef(
            key=str(row["key"]),
            name=str(row["name"]),
            label=str(row["label"]),
            aliases=aliases,
            mentions=int(row.get("mentions") or 0),  # type: ignore[call-overload]
        )
        for surface in {node.name, *aliases}:
            for norm in name_variants(surface):
                by_norm[norm][node.key] = node
                max_tokens = max(max_tokens, norm.count(" ") + 1)
            if node.label == PUBLICATION and len(surface) > 1:
                publications.setdefault(surface, node)
    ordered = {norm: sorted(nodes.values(), key=lambda n: -n.mentions) for norm, nodes in by_norm.items()}
    # Longest surface first so "The New York Times" wins over "New York Times" at the same place.
    patterns = [
        (re.compile(r"(?<![\w])" + re.escape(surface) + r"(?![\w])"), node)
        for surface, node in sorted(publications.items(), key=lambda item: -len(item[0]))
    ]
    return NameIndex(ordered, patterns, min(max_tokens, 8), version)


class NameIndexCache:
    """Loads the index once; re-checks the graph's entity/mention counts at most every `ttl_s` seconds."""

    def __init__(self, graph: Graph, ttl_s: float = 10.0) -> None:
        self.graph = graph
        self.ttl_s = ttl_s
        self._index: NameIndex | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()

    def get(self) -> NameIndex:
        now = time.monotonic()
        if self._index is not None and now - self._checked_at < self.ttl_s:
            return self._index
        with self._lock:
            if self._index is not None and now - self._checked_at < self.ttl_s:
                return self._index
            version = self._version()
            if self._index is None or self._index.version != version:
                self._index = build_index(self.graph.read("retrieve/entity_names"), version)
            self._checked_at = time.monotonic()
            return self._index

    def invalidate(self) -> None:
        with self._lock:
            self._index = None

    def _version(self) -> tuple[int, int]:
        rows = self.graph.read("retrieve/entity_version")
        if not rows:
            return (0, 0)
        return (int(rows[0]["entities"]), int(rows[0]["mentions"]))
