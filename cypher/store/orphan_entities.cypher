// Entities no chunk mentions and no document reports by: what a delete or an update should have removed.
MATCH (e:Entity {workspace: $workspace})
WHERE NOT EXISTS { (:Chunk {workspace: $workspace})-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document {workspace: $workspace})-[:REPORTED_BY]->(e) }
RETURN e.key AS key
ORDER BY key
LIMIT $limit
