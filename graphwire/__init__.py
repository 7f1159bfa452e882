"""graphwire: graph-RAG over a Neo4j knowledge graph, measured against flat retrieval.

The Python API, with Neo4j running (`graphwire neo4j start`) and settings in the environment or `.env`:

    >>> from graphwire import DEMO_CORPUS, Graphwire
    >>> with Graphwire() as gw:
    ...     report = gw.ingest(DEMO_CORPUS)
    ...     answer = gw.ask("Who is the chief executive of the company Paradigm Ventures invested in?")
    >>> answer.text
    'Ada Park'
    >>> [c.title for c in answer.citations][:1]
    ['Lumen Labs names Ada Park chief executive as it readies first chip']

Importing this package is cheap: `Graphwire` and the rest load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from graphwire.client import Graphwire
    from graphwire.core.access import Reader
    from graphwire.core.settings import Settings

__all__ = ["DEMO_CORPUS", "Graphwire", "Reader", "Settings"]


def __getattr__(name: str) -> Any:
    if name == "Graphwire":
        from graphwire.client import Graphwire

        return Graphwire
    if name == "Reader":
        from graphwire.core.access import Reader

        return Reader
    if name == "Settings":
        from graphwire.core.settings import Settings

        return Settings
    if name == "DEMO_CORPUS":
        from graphwire.core.paths import DEMO_DIR

        demo: Path = DEMO_DIR / "articles.jsonl"
        return demo
    raise AttributeError(f"module 'graphwire' has no attribute {name!r}")
