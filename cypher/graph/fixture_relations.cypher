// Test and benchmark fixtures only: entity-entity facts with their supporting chunks, typed dynamically.
UNWIND $rows AS row
MATCH (s:Entity {key: row.source_key})
MATCH (t:Entity {key: row.target_key})
MERGE (s)-[r:$(row.type)]->(t)
SET r.chunk_ids = row.chunk_ids, r.evidence = row.evidence, r.extractor = 'fixture'
