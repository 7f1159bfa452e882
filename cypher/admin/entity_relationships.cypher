// Every extracted relationship between two entities, with its provenance (inspection and tests).
MATCH (s:Entity {workspace: $workspace})-[r]->(o:Entity {workspace: $workspace})
WHERE r.chunk_ids IS NOT NULL AND type(r) <> 'REPORTED_BY'
RETURN s.name AS subject, type(r) AS relationship, o.name AS object, r.chunk_ids AS chunk_ids,
       coalesce(r.evidence, []) AS evidence
ORDER BY subject, relationship, object
LIMIT $limit
