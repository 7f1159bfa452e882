// db check --repair: mark the orphan entities for ingest/sweep_orphan_entities, which deletes them.
MATCH (e:Entity {workspace: $workspace})
WHERE NOT EXISTS { (:Chunk {workspace: $workspace})-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document {workspace: $workspace})-[:REPORTED_BY]->(e) }
SET e.orphan_check = true
RETURN count(e) AS marked
