// Every relationship between entities with its provenance (tests compare runs with it; handy for exports).
MATCH (a:Entity {workspace: $workspace})-[r]->(b:Entity {workspace: $workspace})
RETURN a.key AS source, type(r) AS type, b.key AS target, r.chunk_ids AS chunk_ids, r.evidence AS evidence
ORDER BY source, type, target
