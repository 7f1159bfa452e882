"""Name normalisation now lives in `core.names` (shared with retrieval); these names are re-exported for the
ingest modules that still import them from here."""

from core.names import CORPORATE_SUFFIXES, clean_surface, digits_of, entity_key, normalise_name

__all__ = ["CORPORATE_SUFFIXES", "clean_surface", "digits_of", "entity_key", "normalise_name"]
