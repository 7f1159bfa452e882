// Relationships between entities whose provenance is empty or names a chunk the graph does not have.
MATCH (a:Entity {workspace: $workspace})-[r]->(b:Entity {workspace: $workspace})
WHERE r.chunk_ids IS NULL OR size(r.chunk_ids) = 0
   OR any(cid IN r.chunk_ids WHERE NOT EXISTS { MATCH (:Chunk {workspace: $workspace, id: cid}) })
RETURN a.key AS source, type(r) AS type, b.key AS target, coalesce(r.chunk_ids, []) AS chunk_ids
ORDER BY source, type, target
LIMIT $limit
