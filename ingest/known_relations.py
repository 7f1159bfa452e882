"""Which entity-to-entity relationships the graph already holds, so a batch can CREATE the ones that are new.

MERGE of a relationship has to look through the relationships of one end node first, and next to an entity that
many chunks mention that is most of the cost of a write. The run knows better: before a batch claims relationships
it reads the relationships of those source entities that were in the graph when the run started (each entity once:
a run into an empty graph reads nothing, a small run into a large graph reads only what it touches; the resolver
says which entities those are, ingest/resolve.py), and it
remembers what it wrote since. Keys are kept as hashes, not string triples (69 MB for a million relationships,
measured); a collision only sends a new relationship down the MERGE path, which is always correct. Relationships
deleted during the run stay "known" for the same reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

RelationRows = Iterable[Mapping[str, object]]  # rows of (source, type, target) keys


class KnownRelations:
    def __init__(
        self,
        stored: Callable[[str], bool] = lambda key: False,
        fetch: Callable[[list[str]], RelationRows] | None = None,
    ) -> None:
        """`stored`: whether an entity key was in the graph when the run started (the resolver read it from there);
        `fetch` reads the relationships going out of the given entity keys (required for stored entities)."""
        self._keys: set[int] = set()
        self._read: set[str] = set()  # stored entities whose relationships were read
        self._stored = stored
        self._fetch = fetch

    def prefetch(self, sources: Iterable[str]) -> None:
        """Read, in one call, the relationships of those `sources` the graph had when the run started and that no
        earlier batch asked for."""
        wanted = [key for key in dict.fromkeys(sources) if key not in self._read and self._stored(key)]
        if not wanted:
            return
        if self._fetch is None:
            raise ValueError("KnownRelations needs `fetch` to read the relationships of stored entities")
        self._read.update(wanted)
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
