// Chunk records by id, for re-embedding the vectors a vector store lost (db check --repair, ingest).
UNWIND $ids AS cid
MATCH (c:Chunk {workspace: $workspace, id: cid})
RETURN c.id AS id, c.document_id AS document_id, c.index AS index, c.text AS text, c.title AS title,
       c.source AS source, c.published_at AS published_at, c.locator AS locator, c.char_start AS char_start,
       c.char_end AS char_end
