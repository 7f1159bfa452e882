"""Which kind of transaction a Cypher statement needs, from its clauses: a statement that writes (CREATE, MERGE, SET,
DELETE, REMOVE, DETACH, FOREACH, DROP, a `db.create.*` procedure, `CALL ... IN TRANSACTIONS`) needs a write
transaction, every other one a read transaction. Comments, string literals and backquoted names are left out first, so
a word in a comment or a value never counts."""

from __future__ import annotations

import re

from graphwire.core.clients.graph import READ, WRITE, Access

WRITE_CLAUSE = re.compile(
    r"\b(?:CREATE|MERGE|SET|DELETE|REMOVE|DETACH|FOREACH|DROP)\b|\bdb\.create\.|\bIN\s+(?:\d+\s+|\$\w+\s+)?"
    r"(?:CONCURRENT\s+)?TRANSACTIONS\b",
    re.IGNORECASE,
)
_COMMENTS_AND_LITERALS = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`[^`]*`", re.DOTALL)


def kind_of(statement: str) -> Access:
    """WRITE when the statement's text holds a write clause, else READ."""
    return WRITE if WRITE_CLAUSE.search(_COMMENTS_AND_LITERALS.sub(" ", statement)) else READ
