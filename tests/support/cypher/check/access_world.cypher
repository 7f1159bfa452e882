// What a reader may read of the whole store (tests/integration/test_document_access.py): the texts of the chunks whose
// access is null or names one of $readers, and the keys of the entities those chunks mention or their documents are
// reported by.
MATCH (c:Chunk {workspace: $workspace})
WHERE c.access IS NULL OR any(name IN c.access WHERE name IN $readers)
OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity {workspace: $workspace})
OPTIONAL MATCH (c)<-[:HAS_CHUNK]-(:Document {workspace: $workspace})-[:REPORTED_BY]->(p:Entity {workspace: $workspace})
WITH collect(DISTINCT {id: c.id, text: c.text}) AS chunks, collect(DISTINCT e.key) + collect(DISTINCT p.key) AS keys
RETURN chunks, keys AS entities
