// Delete chunks, then the entities only they mentioned (a Publication some Document reports by stays).
MATCH (c:Chunk)
WHERE c.id IN $chunk_ids
OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity)
WITH collect(DISTINCT c) AS chunks, collect(DISTINCT e) AS entities
FOREACH (c IN chunks | DETACH DELETE c)
WITH entities
UNWIND entities AS e
WITH e
WHERE NOT EXISTS { (:Chunk)-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document)-[:REPORTED_BY]->(e) }
DETACH DELETE e
RETURN count(e) AS removed_entities
