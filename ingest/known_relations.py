"""Which entity-to-entity relationships the graph already holds, so a batch can CREATE the ones that are new.

MERGE of a relationship has to look through the relationships of one end node first, and next to an entity that
many chunks mention that is most of the cost of a write. The run knows better: it loaded what the graph held when it
started and remembers what it wrote since. Keys are kept as hashes, not string triples (69 MB for a million
relationships, measured); a collision only sends a new relationship down the MERGE path, which is always correct.
Relationships deleted during the run stay "known" for the same reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class KnownRelations:
    def __init__(self) -> None:
        self._keys: set[int] = set()

    def load(self, rows: Iterable[Mapping[str, object]]) -> None:
        """Seed with (source, type, target) rows read from the graph; replaces what an earlier run remembered."""
        self._keys = {hash((row["source"], row["type"], row["target"])) for row in rows}

    def claim(self, source: str, rel_type: str, target: str) -> bool:
        """True the first time a relationship is seen (the graph does not have it); it is known from then on."""
        key = hash((source, rel_type, target))
        if key in self._keys:
            return False
        self._keys.add(key)
        return True

    def __len__(self) -> int:
        return len(self._keys)
