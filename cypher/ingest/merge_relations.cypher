// Typed relationships between entities (dynamic type, Cypher 5.26). chunk_ids and evidence are parallel lists:
// a chunk id is added once, with its evidence sentence ('' when the extractor gave none).
UNWIND $rows AS row
MATCH (a:Entity {key: row.source})
MATCH (b:Entity {key: row.target})
MERGE (a)-[r:$(row.type)]->(b)
WITH r, row, coalesce(r.chunk_ids, []) AS old, coalesce(r.evidence, []) AS old_evidence
WITH r, row, old, old_evidence, [i IN range(0, size(row.chunk_ids) - 1) WHERE NOT row.chunk_ids[i] IN old] AS fresh
SET r.chunk_ids = old + [i IN fresh | row.chunk_ids[i]],
    r.evidence = old_evidence + [i IN fresh | row.evidence[i]],
    r.extractor = row.extractor
