// Delete chunks; returns the keys of the entities they mentioned. Those are removed by delete_orphan_entities once
// nothing else mentions them: at the end of an ingest run, since later batches may mention them again.
MATCH (c:Chunk)
WHERE c.id IN $chunk_ids
OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity)
WITH collect(DISTINCT c) AS chunks, collect(DISTINCT e.key) AS keys
FOREACH (c IN chunks | DETACH DELETE c)
RETURN keys AS entity_keys
