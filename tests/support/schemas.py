"""The bundled schemas and what tests build from them, in one place."""

from __future__ import annotations

from graphwire.core.settings import get_settings
from graphwire.ingest.provenance import ProvenanceCaps
from graphwire.schema.model import GraphSchema, load_schema


def news_caps(schema: GraphSchema | None = None) -> ProvenanceCaps:
    """The capped provenance types of `schema` (the news schema when None) at the process's PROVENANCE_CAP, read
    now (tests set PROVENANCE_CAP in the environment)."""
    return ProvenanceCaps.of(schema or load_schema(), get_settings())


__all__ = ["news_caps"]
