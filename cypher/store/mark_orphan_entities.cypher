// db check --repair: mark the orphan entities for ingest/sweep_orphan_entities, which deletes them.
MATCH (e:Entity)
WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document)-[:REPORTED_BY]->(e) }
SET e.orphan_check = true
RETURN count(e) AS marked
