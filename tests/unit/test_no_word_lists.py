"""Word lists that are domain knowledge live in the schema's lexicon files (schema/lexicon/*.txt), not in code
(issue 22, item 6): no module under retrieval/, ingest/ or core/ spells a literal list of many words, as a
collection of strings, a word string to split, or a regex alternation of words."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graphwire.schema.lexicon import LEXICON_DIR, phrase_list, phrase_pattern

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("retrieval", "ingest", "core")
MAX_WORDS = 15
_WORD = re.compile(r"[a-z][a-z'\-]*")
# What legitimately remains, as "path:assigned name", with why it stays in code.
ALLOWED: dict[str, str] = {
    "retrieval/graph/relations.py:_DATED": "a date shape, not vocabulary: three-letter month prefixes (jan..dec, which"
    " also match the full names) after in/on/since; the month words themselves are calendar_words.txt, whose"
    " entries (weekdays, 'sept', 'today') would change what this pattern matches",
    "ingest/formats/html.py:_BLOCKS": "HTML's block-level element names (the HTML standard), not vocabulary",
}


def _docstrings(tree: ast.AST) -> set[int]:
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef)]
    return {
        id(n.body[0].value)
        for n in nodes
        if n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
    }


def _all_lists(tree: ast.AST) -> set[int]:
    return {
        id(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)
    }


def _word_count(node: ast.AST) -> int:
    """How many literal words `node` spells: strings in a collection, words of a word string, or regex alternatives."""
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        return sum(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        words = node.value.split()
        alternatives = [a for a in re.split(r"\|", node.value) if _WORD.search(a)]
        plain = len(words) if words and all(_WORD.fullmatch(w) for w in words) else 0
        return max(plain, len(alternatives) if len(alternatives) > 1 else 0)
    return 0


def _assigned_names(tree: ast.AST) -> dict[int, str]:
    """Node -> the name the assignment around it binds."""
    names: dict[int, str] = {}
    for assign in ast.walk(tree):
        if isinstance(assign, ast.Assign) and isinstance(assign.targets[0], ast.Name):
            names.update({id(n): assign.targets[0].id for n in ast.walk(assign.value)})
    return names


def _word_lists(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip, names = _docstrings(tree) | _all_lists(tree), _assigned_names(tree)
    rel = path.relative_to(ROOT)
    return [
        f"{rel}:{getattr(node, 'lineno', 0)}: {_word_count(node)} words"
        for node in ast.walk(tree)
        if id(node) not in skip and _word_count(node) > MAX_WORDS and f"{rel}:{names.get(id(node), '')}" not in ALLOWED
    ]


def test_the_allowlist_names_what_is_there() -> None:
    for entry in ALLOWED:
        path, name = entry.split(":")
        assert re.search(rf"^{name} = ", (ROOT / path).read_text(encoding="utf-8"), re.MULTILINE), entry


def test_no_literal_word_list_in_code() -> None:
    sources = [p for name in PACKAGES for p in sorted((ROOT / name).rglob("*.py"))]
    assert len(sources) > 50  # the walk found the packages
    found = [hit for path in sources for hit in _word_lists(path)]
    assert found == [], "word lists in code (move them to schema/lexicon/*.txt):\n" + "\n".join(found)


@pytest.mark.parametrize("path", sorted(LEXICON_DIR.glob("*.txt")), ids=lambda p: p.name)
def test_each_lexicon_file_says_what_it_is_for_and_is_read(path: Path) -> None:
    assert path.read_text(encoding="utf-8").startswith("# ")
    assert phrase_list(path.stem)
    readers = [p for name in (*PACKAGES, "schema") for p in (ROOT / name).rglob("*.py")]
    assert any(
        f'"{path.stem}"' in p.read_text(encoding="utf-8") or f"'{path.stem}'" in p.read_text(encoding="utf-8")
        for p in readers
    )


def test_phrase_patterns_keep_file_order_and_literal_words() -> None:
    assert phrase_pattern("order_cues", gap=" ").startswith("(?:before|after|earlier than|")
    assert r"prior\s+to" in phrase_pattern("date_before_cues")
    assert r"chang\w*" in phrase_pattern("not_order_cues")
    assert r"mid\-|mid|" in phrase_pattern("month_cues")  # "mid-June" before "mid June", as `mid-?` tried them
