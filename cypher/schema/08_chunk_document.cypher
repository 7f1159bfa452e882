CREATE INDEX chunk_document IF NOT EXISTS FOR (c:Chunk) ON (c.document_id)
