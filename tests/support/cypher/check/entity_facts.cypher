// Every extracted entity-entity relationship with the labels of both ends and its provenance (chunk ids, evidence).
MATCH (s:Entity {workspace: $workspace})-[r]->(o:Entity {workspace: $workspace})
WHERE r.chunk_ids IS NOT NULL AND type(r) <> 'REPORTED_BY'
RETURN s.name AS subject, [l IN labels(s) WHERE l <> 'Entity'] AS subject_labels, type(r) AS type,
       o.name AS object, [l IN labels(o) WHERE l <> 'Entity'] AS object_labels, r.chunk_ids AS chunk_ids,
       coalesce(r.evidence, []) AS evidence
ORDER BY subject, type, object
