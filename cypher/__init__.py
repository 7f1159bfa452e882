"""Every Cypher statement graphwire runs, one `.cypher` file each, loaded by name.

Statements take parameters only; nothing here is ever formatted with user input. `query("ingest/merge_entities")`
returns the text of `cypher/ingest/merge_entities.cypher`. A `Catalogue` reads other folders as well (the tests keep
their own statements in tests/support/cypher/); the module functions read the product's folder, `PRODUCT`.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

CYPHER_ROOT = Path(__file__).parent


class CypherNotFoundError(KeyError):
    """A statement name that has no file in the catalogue's folders."""


class Catalogue:
    """The `.cypher` files under one or more folders, named by their path in it without the suffix.

    Read on first use. A name found under two folders is an error, so an added folder never shadows a statement."""

    def __init__(self, *roots: Path) -> None:
        if not roots:
            raise ValueError("a catalogue needs at least one folder")
        self.roots = tuple(roots)

    @cached_property
    def _statements(self) -> dict[str, str]:
        statements: dict[str, str] = {}
        for root in self.roots:
            for path in sorted(root.rglob("*.cypher")):
                name = path.relative_to(root).with_suffix("").as_posix()
                if name in statements:
                    raise ValueError(f"Cypher statement {name!r} is in more than one of {[str(r) for r in self.roots]}")
                statements[name] = path.read_text(encoding="utf-8").strip()
        return dict(sorted(statements.items()))

    def query(self, name: str) -> str:
        """The text of one statement, by its path under a root without the suffix."""
        try:
            return self._statements[name]
        except KeyError:
            where = ", ".join(str(r) for r in self.roots)
            raise CypherNotFoundError(f"no Cypher statement {name!r} under {where}") from None

    def statements_in(self, folder: str) -> list[tuple[str, str]]:
        """All statements in one folder, ordered by file name (schema bootstrap runs them in this order)."""
        prefix = folder.rstrip("/") + "/"
        return [(n, text) for n, text in self._statements.items() if n.startswith(prefix)]

    def names(self) -> list[str]:
        return list(self._statements)

    def with_folder(self, root: Path) -> Catalogue:
        """This catalogue's statements and those under `root`."""
        return Catalogue(*self.roots, root)


PRODUCT = Catalogue(CYPHER_ROOT)


def query(name: str) -> str:
    """The text of one product statement, by its path under cypher/ without the suffix."""
    return PRODUCT.query(name)


def statements_in(folder: str) -> list[tuple[str, str]]:
    """All product statements in one folder, ordered by file name (schema bootstrap runs them in this order)."""
    return PRODUCT.statements_in(folder)


def names() -> list[str]:
    return PRODUCT.names()
