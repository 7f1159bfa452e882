"""graphwire: graph-RAG over a Neo4j knowledge graph, measured against flat retrieval."""
