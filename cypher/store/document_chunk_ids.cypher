// The chunk ids of several documents (ingest checks that the vector store still has those of unchanged documents).
UNWIND $document_ids AS document_id
MATCH (c:Chunk {workspace: $workspace, document_id: document_id})
RETURN c.id AS id
