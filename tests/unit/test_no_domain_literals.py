"""No news label or relationship type is spelled in the package's code outside schema/ (issue 22, item 6): code asks
the schema it was given (`schema.roles.publisher_label`, `reported_by_type`, ...) so another schema brings its own."""

from __future__ import annotations

import re
from pathlib import Path

from graphwire.schema.model import load_schema

ROOT = Path(__file__).resolve().parents[2]
ENCYCLOPEDIA = ROOT / "schema" / "encyclopedia.yaml"
# the package's code (the folders graphwire/ links to, and graphwire's own modules); schema/ and its loaders are
# where the names live
PACKAGES = ("app", "cli", "core", "eval", "ingest", "retrieval")


def _news_only_names() -> set[str]:
    news, encyclopedia = load_schema(), load_schema(ENCYCLOPEDIA)
    labels = set(news.labels) - set(encyclopedia.labels)
    types = set(news.types) - set(encyclopedia.types)
    return labels | types | {news.roles.publisher_label, news.roles.reported_by_type}


def _sources() -> list[Path]:
    files = [p for name in PACKAGES for p in (ROOT / name).rglob("*.py")] + list((ROOT / "graphwire").glob("*.py"))
    return [p for p in files if "schema" not in p.relative_to(ROOT).parts]


def test_the_news_names_are_known() -> None:
    names = _news_only_names()
    assert {"Publication", "REPORTED_BY", "CEO_OF", "LegalCharge"} <= names


def test_no_news_label_or_type_literal_outside_the_schema() -> None:
    names = "|".join(sorted(map(re.escape, _news_only_names())))
    literal = re.compile(rf"""["']({names})["']""")
    sources = _sources()
    assert len(sources) > 100  # the walk found the package
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert found == [], "news names spelled in code (ask the schema instead):\n" + "\n".join(found)
