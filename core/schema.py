"""The schema this process uses: `SCHEMA_PATH` from the settings (unset: the bundled schema/news.yaml), loaded once.

Extractors, the gazetteers and the retrievers take a schema argument; this is what they use when given none, so
pointing `SCHEMA_PATH` at another schema file switches the domain vocabulary of all of them without code changes.
"""

from __future__ import annotations

from graphwire.core.settings import Settings, get_settings
from graphwire.schema.model import GraphSchema, load_schema


def configured_schema(settings: Settings | None = None) -> GraphSchema:
    """The schema of `settings` (default: the process settings); `load_schema` caches it per path."""
    return load_schema((settings or get_settings()).schema_path)
