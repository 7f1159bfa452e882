"""The schema of a process's settings: `SCHEMA_PATH` (unset: the bundled schema/news.yaml), loaded once per path.

Surfaces (the CLI, the API, the Python API) call it with their settings and hand the schema to what they build;
extractors, gazetteers, resolvers and retrievers take the schema they use as an argument and never read it here.
"""

from __future__ import annotations

from graphwire.core.settings import Settings
from graphwire.schema.model import GraphSchema, load_schema


def configured_schema(settings: Settings) -> GraphSchema:
    """The schema of `settings`; `load_schema` caches it per path."""
    return load_schema(settings.schema_path)
