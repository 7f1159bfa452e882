// Added facts (`keep-fact` rules) written back after an ingest: where the chunk and both entities exist and the
// relationship lacks the chunk, it gets the chunk id and the person's evidence (created if it is gone).
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunk_id})
MATCH (a:Entity {workspace: $workspace, key: row.source})
MATCH (b:Entity {workspace: $workspace, key: row.target})
MERGE (a)-[r:$(row.type)]->(b)
WITH r, row, coalesce(r.chunk_ids, []) AS ids
WHERE NOT row.chunk_id IN ids
WITH r, row, ids, coalesce(r.evidence, [x IN ids | '']) AS evidence
SET r.chunk_ids = ids + row.chunk_id, r.evidence = evidence + row.evidence,
    r.extractor = coalesce(r.extractor, 'curated')
RETURN count(r) AS restored
