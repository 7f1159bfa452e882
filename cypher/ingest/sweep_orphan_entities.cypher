// Up to $limit entities marked `orphan_check` (their chunks were deleted): those no chunk mentions and no document
// reports by any more are deleted, the others lose the mark. Run until `seen` < $limit.
MATCH (e:Entity {workspace: $workspace})
WHERE e.orphan_check = true
WITH e LIMIT $limit
REMOVE e.orphan_check
WITH e, NOT EXISTS { (:Chunk {workspace: $workspace})-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document {workspace: $workspace})-[:REPORTED_BY]->(e) } AS orphan
WITH collect(e) AS seen, collect(CASE WHEN orphan THEN e END) AS orphans
FOREACH (e IN orphans | DETACH DELETE e)
RETURN size(seen) AS seen, size(orphans) AS removed
