"""The house rules a reader relies on: no module of the package over 400 lines, imports point one way between
layers (schema, cypher -> core -> ingest, retrieval -> app, eval, cli), no router imports another's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "cli", "core", "cypher", "eval", "ingest", "retrieval", "schema", "graphwire")
MAX_LINES = 400
# what each layer may import from graphwire (besides itself)
ALLOWED = {
    "schema": set(),
    "cypher": set(),
    "core": {"schema", "cypher"},
    "ingest": {"schema", "cypher", "core"},
    "retrieval": {"schema", "cypher", "core"},
    "app": {"schema", "cypher", "core", "ingest", "retrieval"},
    "eval": {"schema", "cypher", "core", "ingest", "retrieval"},
    "cli": {"schema", "cypher", "core", "ingest", "retrieval", "eval", "app"},
}


def _modules(package: str) -> list[Path]:
    base = ROOT / package
    if package == "graphwire":
        return sorted(p for p in base.glob("*.py") if p.is_file())
    return sorted(base.rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_is_over_400_lines(package: str) -> None:
    long = {
        str(p.relative_to(ROOT)): n for p in _modules(package) if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, long


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_imports_point_one_way(layer: str) -> None:
    wrong = []
    for path in _modules(layer):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("graphwire."):
                target = node.module.split(".")[1]  # type: ignore[union-attr]
                if target != layer and target in ALLOWED and target not in ALLOWED[layer]:
                    wrong.append(f"{path.relative_to(ROOT)}: from {node.module}")
    assert not wrong, wrong


def test_test_files_have_unique_names() -> None:
    """pytest imports test files by their base name (no __init__.py in tests/): two test_x.py in two folders break
    collection of the whole suite."""
    names = [path.name for path in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []
