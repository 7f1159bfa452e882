// Entities (among the given keys) that no chunk mentions and no document reports by any more.
UNWIND $keys AS key
MATCH (e:Entity {key: key})
WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document)-[:REPORTED_BY]->(e) }
DETACH DELETE e
RETURN count(e) AS removed_entities
