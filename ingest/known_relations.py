"""Which entity-to-entity relationships the graph already holds, so a batch can CREATE the ones that are new.

MERGE of a relationship has to look through the relationships of one end node first, and next to an entity that
many chunks mention that is most of the cost of a write. The run knows better: before a batch claims relationships
it reads the relationships of those source entities that were in the graph when the run started (each entity once:
a run into an empty graph reads nothing, a small run into a large graph reads only what it touches), and it
remembers what it wrote since. Keys are kept as hashes, not string triples (69 MB for a million relationships,
measured); a collision only sends a new relationship down the MERGE path, which is always correct. Relationships
deleted during the run stay "known" for the same reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

RelationRows = Iterable[Mapping[str, object]]  # rows of (source, type, target) keys


class KnownRelations:
    def __init__(
        self, stored_entities: Iterable[str] = (), fetch: Callable[[list[str]], RelationRows] | None = None
    ) -> None:
        """`stored_entities`: keys of the entities the graph held when the run started; `fetch` reads the
        relationships going out of the given entity keys (required when there are stored entities)."""
        self._keys: set[int] = set()
        self._unread = set(stored_entities)  # stored entities whose relationships have not been read yet
        if self._unread and fetch is None:
            raise ValueError("KnownRelations needs `fetch` to read the relationships of stored entities")
        self._fetch = fetch

    def prefetch(self, sources: Iterable[str]) -> None:
        """Read, in one call, the relationships of those `sources` the graph had when the run started and that no
        earlier batch asked for."""
        wanted = [key for key in dict.fromkeys(sources) if key in self._unread]
        if not wanted or self._fetch is None:
            return
        self._unread.difference_update(wanted)
        self._keys.update(hash((row["source"], row["type"], row["target"])) for row in self._fetch(wanted))

    def claim(self, source: str, rel_type: str, target: str) -> bool:
        """True the first time a relationship is seen (the graph does not have it); it is known from then on.
        `prefetch` must have seen `source` first."""
        key = hash((source, rel_type, target))
        if key in self._keys:
            return False
        self._keys.add(key)
        return True

    def __len__(self) -> int:
        return len(self._keys)
