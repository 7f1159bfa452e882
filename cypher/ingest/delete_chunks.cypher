// Delete chunks. The entities they mentioned are marked `orphan_check` in the same transaction, so the check whether
// anything still mentions them (sweep_orphan_entities) survives a crash: the next run sweeps what this one could not.
MATCH (c:Chunk {workspace: $workspace})
WHERE c.id IN $chunk_ids
OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity {workspace: $workspace})
WITH collect(DISTINCT c) AS chunks, collect(DISTINCT e) AS entities
FOREACH (e IN entities | SET e.orphan_check = true)
FOREACH (c IN chunks | DETACH DELETE c)
RETURN size(chunks) AS removed_chunks
