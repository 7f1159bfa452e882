// Chunks no document has (their document was deleted without them).
MATCH (c:Chunk {workspace: $workspace})
WHERE NOT EXISTS { (:Document {workspace: $workspace})-[:HAS_CHUNK]->(c) }
RETURN c.id AS id
ORDER BY id
LIMIT $limit
