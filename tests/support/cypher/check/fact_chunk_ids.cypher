// The chunk_ids stored on one entity-entity relationship, found by both names and its type.
MATCH (a:Entity {workspace: $workspace, name: $subject})-[r]->(b:Entity {workspace: $workspace, name: $object})
WHERE type(r) = $type
RETURN r.chunk_ids AS ids
