// The entities a document's chunks mention, most mentioned first.
MATCH (:Document {workspace: $workspace, id: $document_id})-[:HAS_CHUNK]->(:Chunk {workspace: $workspace})-[m:MENTIONS]->(e:Entity {workspace: $workspace})
WITH e, sum(coalesce(m.count, 1)) AS mentions
RETURN e.name AS name, e.label AS label, mentions
ORDER BY mentions DESC, name
LIMIT $limit
