"""Question alias extractors beside the deterministic one in retrieval/graph/aliases.py."""
