// The chunk_ids stored on one entity-entity relationship, found by both names and its type.
MATCH (a:Entity {name: $subject})-[r]->(b:Entity {name: $object})
WHERE type(r) = $type
RETURN r.chunk_ids AS ids
