"""Every statement under cypher/ stays inside one workspace: each node pattern of a label that lives in a workspace
names `workspace: $workspace`, full-text lookups (whose indexes span workspaces) filter on it, and a pattern without a
label that starts a match filters on it too. A new statement that forgets it fails here.

A node reached through a relationship from the node before it in a path (`(a)-[r]->(b:Entity)`) may leave it out in
a statement that only reads: relationships never join two workspaces (every write matches both its ends in its own),
and the filter on every hop costs stage 3 a fifth of its time."""

from __future__ import annotations

import re

import pytest

from graphwire import cypher

SCOPED = {"Entity", "Chunk", "Document", "Date", "Edit", "CurationRule", "StoreVersion", "RejectedPair",
          "WriterLease", "Publication", "Workspace"}  # fmt: skip
NODE = re.compile(r"\((\w*)\s*:\s*(\w+(?:\s*:\s*\w+)*)\s*(\{[^}]*\})?\s*\)")
UNSCOPED_FOLDERS = ("schema/", "bench/")  # constraints and indexes span workspaces; bench statements use their own
WHOLE_STORE = {"admin/wipe"}  # the tests' reset: every workspace at once
# statements about the workspaces themselves (listing them and the deletes to finish, whether others share the store,
# moving a pre-workspace store's nodes)
# and the caches' change signal (count-store lookups, which know no workspace)
ACROSS = {"store/shared_workspaces", "store/workspaces", "store/deleting_workspaces", "admin/assign_default_workspace",
          "graph/fingerprint"}  # fmt: skip


WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE)\b")


def _reached(text: str, start: int) -> bool:
    """Whether the node pattern at `start` is the end of a relationship (`-(`, `->(`, `<-(`... before it)."""
    return text[:start].rstrip()[-1:] in ("-", ">")


def _code(text: str) -> str:
    return "\n".join(line.partition("//")[0] for line in text.splitlines())


def _statements() -> list[tuple[str, str]]:
    return [(n, _code(cypher.query(n))) for n in cypher.names() if not n.startswith(UNSCOPED_FOLDERS)]


@pytest.mark.parametrize(("name", "text"), _statements(), ids=lambda v: v if "/" in str(v) else "")
def test_every_scoped_node_pattern_names_the_workspace(name: str, text: str) -> None:
    if name in ACROSS:
        return
    writes = WRITES.search(text) is not None
    missing = [
        m.group(0)
        for m in NODE.finditer(text)
        if set(re.split(r"\s*:\s*", m.group(2))) & SCOPED
        and "workspace: $workspace" not in (m.group(3) or "")
        and (writes or not _reached(text, m.start()))
    ]
    assert not missing, f"{name}: node patterns without workspace: $workspace: {missing}"


@pytest.mark.parametrize(("name", "text"), _statements(), ids=lambda v: v if "/" in str(v) else "")
def test_full_text_lookups_and_unlabelled_matches_filter_on_the_workspace(name: str, text: str) -> None:
    if name in WHOLE_STORE | ACROSS:
        return
    full_text = "db.index.fulltext.queryNodes" in text
    unlabelled = re.search(r"MATCH \((\w*)\)\s*(?:$|WHERE|WITH|RETURN)", text, re.MULTILINE) is not None
    if full_text or unlabelled:
        assert re.search(r"\w+\.workspace\s*=\s*\$workspace", text), f"{name} reads every workspace"


def test_the_exceptions_are_statements_that_exist() -> None:
    assert set(cypher.names()) >= WHOLE_STORE | ACROSS
