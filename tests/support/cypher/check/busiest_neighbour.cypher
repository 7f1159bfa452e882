// The neighbour of $key (not a Publication, not through REPORTED_BY) with the most relationships, how many it has,
// and the documents whose chunks mention it (tests/integration/test_document_access.py, the hub bound).
MATCH (a:Entity {workspace: $workspace, key: $key})-[r]-(m:Entity)
WHERE type(r) <> 'REPORTED_BY' AND NOT m:Publication
WITH DISTINCT m
WITH m, COUNT { (m)--() } AS degree
ORDER BY degree DESC, m.key
LIMIT 1
MATCH (d:Document {workspace: $workspace})-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(m)
RETURN m.key AS key, degree, collect(DISTINCT d.id) AS documents
