"""Every Cypher statement graphwire runs, one `.cypher` file each, loaded by name.

Statements take parameters only; nothing here is ever formatted with user input. `query("ingest/merge_entities")`
returns the text of `cypher/ingest/merge_entities.cypher`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

CYPHER_ROOT = Path(__file__).parent


class CypherNotFoundError(KeyError):
    """A statement name that has no file under cypher/."""


@cache
def _catalogue() -> dict[str, str]:
    statements: dict[str, str] = {}
    for path in sorted(CYPHER_ROOT.rglob("*.cypher")):
        name = path.relative_to(CYPHER_ROOT).with_suffix("").as_posix()
        statements[name] = path.read_text(encoding="utf-8").strip()
    return statements


def query(name: str) -> str:
    """The text of one statement, by its path under cypher/ without the suffix."""
    try:
        return _catalogue()[name]
    except KeyError:
        raise CypherNotFoundError(f"no Cypher statement {name!r} under {CYPHER_ROOT}") from None


def statements_in(folder: str) -> list[tuple[str, str]]:
    """All statements in one folder, ordered by file name (schema bootstrap runs them in this order)."""
    prefix = folder.rstrip("/") + "/"
    return [(n, text) for n, text in _catalogue().items() if n.startswith(prefix)]


def names() -> list[str]:
    return list(_catalogue())
