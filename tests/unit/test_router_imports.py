"""Routers share code through app/ modules (app/querying.py), never through each other; answerers live on the
retrieval context, built once per process."""

from __future__ import annotations

import ast
from pathlib import Path

from graphwire.core.settings import Settings
from graphwire.retrieval.registry import RetrievalContext

ROUTERS = Path(__file__).resolve().parents[2] / "app" / "routers"


def test_no_router_imports_another_router() -> None:
    offenders = []
    for path in sorted(ROUTERS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("graphwire.app.routers"):
                offenders.append(f"{path.name}: from {node.module} import ...")
    assert not offenders


def test_the_context_builds_each_answerer_once() -> None:
    ctx = RetrievalContext(Settings())
    assert ctx.answerer("extractive") is ctx.answerer("extractive")
    assert ctx.answerer("auto") is ctx.answerer("auto")  # no LLM configured: the extractive one, cached under auto
