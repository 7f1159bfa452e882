// Entities no chunk mentions and no document reports by: what a delete or an update should have removed.
MATCH (e:Entity)
WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document)-[:REPORTED_BY]->(e) }
RETURN e.key AS key
ORDER BY key
LIMIT $limit
