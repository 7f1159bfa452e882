MATCH (c:Chunk {workspace: $workspace, document_id: $document_id})
RETURN c.id AS id
