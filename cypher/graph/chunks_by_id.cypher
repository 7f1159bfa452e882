// Chunk details for ranked chunk ids (order is restored by the caller).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN c.id AS chunk_id, c.document_id AS document_id, c.title AS title, c.source AS source,
       c.published_at AS published_at, c.text AS text
