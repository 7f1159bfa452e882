"""The graph schema as data: node labels, relationship types, allowed patterns and their descriptions."""

from graphwire.schema.model import GraphSchema, Pattern, default_schema_path, load_schema

__all__ = ["GraphSchema", "Pattern", "default_schema_path", "load_schema"]
