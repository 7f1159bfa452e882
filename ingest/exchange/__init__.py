"""Export and import of the graph: JSON Lines (nodes, relationships, provenance, evidence) and the CSV layout of
`neo4j-admin database import`.

`models.py` is the file format, `reader.py` reads the graph into lines in a fixed order, `csv_export.py` writes those
lines as neo4j-admin CSV files, `validate.py` checks an import file against the schema and the store (every error with
its line), `writer.py` writes a checked file in bounded batches and `service.py` is the one door every surface (HTTP,
CLI, Python API) calls. See docs/export.md.
"""
