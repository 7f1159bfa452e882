MATCH (c:Chunk {document_id: $document_id})
RETURN c.id AS id
