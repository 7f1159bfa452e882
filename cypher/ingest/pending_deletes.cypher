// Deletes a killed run began and did not finish (ingest/mark_document_deleting.cypher).
MATCH (d:Document {workspace: $workspace})
WHERE d.deleting = true
RETURN d.id AS id, d.title AS title
ORDER BY d.id
