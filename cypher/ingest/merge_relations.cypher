// Typed relationships between entities the graph may already have (dynamic type, Cypher 5.26): new chunk ids are
// appended to the provenance. chunk_ids and evidence are parallel lists; a relationship no sentence states (the
// REPORTED_BY inferred from a chunk's publication) has no evidence list, and gets one ('' for the older chunks) the
// first time a row brings a sentence.
UNWIND $rows AS row
MATCH (a:Entity {key: row.source})
MATCH (b:Entity {key: row.target})
MERGE (a)-[r:$(row.type)]->(b)
WITH r, row, coalesce(r.chunk_ids, []) AS old
WITH r, row, old, [i IN range(0, size(row.chunk_ids) - 1) WHERE NOT row.chunk_ids[i] IN old] AS fresh
SET r.chunk_ids = old + [i IN fresh | row.chunk_ids[i]],
    r.evidence = CASE
      WHEN r.evidence IS NULL AND row.evidence IS NULL THEN null
      ELSE coalesce(r.evidence, [x IN old | '']) + [i IN fresh | coalesce(row.evidence[i], '')]
    END,
    r.extractor = row.extractor
