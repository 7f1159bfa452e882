// Chunks no document has (their document was deleted without them).
MATCH (c:Chunk)
WHERE NOT EXISTS { (:Document)-[:HAS_CHUNK]->(c) }
RETURN c.id AS id
ORDER BY id
LIMIT $limit
