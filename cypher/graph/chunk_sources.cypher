// Provenance for graph facts: title, outlet and date of the chunks that support them.
UNWIND $ids AS id
MATCH (c:Chunk {workspace: $workspace, id: id})
RETURN c.id AS chunk_id, c.document_id AS document_id, c.title AS title, c.source AS source,
       c.published_at AS published_at
