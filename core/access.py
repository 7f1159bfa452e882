"""Document-level access: who may read a document, and the reader a request runs as.

A document's `access` lists the groups and principal names that may read it; without one (None) everyone in the
workspace may. A reader is the set of names a caller goes by (its principal's name and groups), or `EVERYONE` for
callers that read the whole store (a server or workspace admin, an open server, the shared API_KEY, the CLI).
docs/security.md describes the model and what is enforced where.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator

ACCESS_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@:+-]{0,99}$")
MAX_ACCESS_ENTRIES = 100


class AccessError(ValueError):
    """An `access` list that cannot be stored (a bad name, too many entries)."""


def validate_access(value: Sequence[str] | None) -> list[str] | None:
    """`value` as stored: None stays None (everyone), names deduplicated and sorted; raises AccessError naming the
    first bad entry. An empty list is refused: it would make a document nobody but an admin reads, which is what
    deleting it is for."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise AccessError("access must be a list of group or principal names")
    if not value:
        raise AccessError("access must name at least one group or principal (leave it out for everyone)")
    if len(value) > MAX_ACCESS_ENTRIES:
        raise AccessError(f"access names {len(value)} groups or principals; at most {MAX_ACCESS_ENTRIES} are allowed")
    for name in value:
        if not isinstance(name, str) or not ACCESS_NAME.match(name):
            raise AccessError(
                f"access entry {str(name)[:40]!r} is not a group or principal name (1-100 characters: letters, "
                "digits and . _ @ : + -, starting with a letter or digit)"
            )
    return sorted(set(value))


def _checked(value: list[str] | None) -> list[str] | None:
    try:
        return validate_access(value)
    except AccessError as exc:  # pydantic reports a ValueError as the field's validation error
        raise ValueError(str(exc)) from exc


AccessList = Annotated[list[str] | None, AfterValidator(_checked)]  # a model field holding an access list


@dataclass(frozen=True)
class Reader:
    """The names a caller reads as; `names` None: everything (no document is closed to it)."""

    names: frozenset[str] | None = None

    @classmethod
    def of(cls, names: Iterable[str]) -> Reader:
        return cls(frozenset(names))

    @property
    def unrestricted(self) -> bool:
        return self.names is None

    def can_read(self, access: Sequence[str] | None) -> bool:
        return self.names is None or not access or not self.names.isdisjoint(access)

    def param(self) -> list[str] | None:
        """The Cypher parameter of statements that filter chunks by access (None: no filter)."""
        return None if self.names is None else sorted(self.names)


EVERYONE = Reader()
