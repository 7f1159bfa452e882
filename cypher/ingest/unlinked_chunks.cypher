// Chunks the dictionary linker has not scanned yet (ingest/linking.py): new ones, and any a killed run left.
MATCH (c:Chunk {workspace: $workspace})
WHERE c.linked IS NULL
RETURN c.id AS id, c.document_id AS document_id, c.text AS text, c.title AS title, c.index AS index
