// Typed relationships between entities that the graph does not have yet (ingest/known_relations.py keeps track),
// created with their provenance: chunk_ids, and evidence as a parallel list when some sentence states the
// relationship (null for the REPORTED_BY inferred from a chunk's publication). A capped type's rows come already cut to
// the cap smallest ids, sorted (ingest/provenance.py).
UNWIND $rows AS row
MATCH (a:Entity {workspace: $workspace, key: row.source})
MATCH (b:Entity {workspace: $workspace, key: row.target})
CREATE (a)-[r:$(row.type)]->(b)
SET r.chunk_ids = row.chunk_ids, r.evidence = row.evidence, r.extractor = row.extractor
