// A document's `access` and its chunks' (retrieval filters chunks by their own copy), in one transaction; no row
// when the document does not exist. $access null: everyone in the workspace may read it.
MATCH (d:Document {workspace: $workspace, id: $id})
SET d.access = $access
WITH d
OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk {workspace: $workspace})
SET c.access = $access
RETURN d.id AS id, count(c) AS chunks
