// One chunk by id with its document's metadata (a citation opened by an MCP client).
MATCH (c:Chunk {id: $chunk_id})
RETURN c.id AS chunk_id, c.document_id AS document_id, c.index AS index, c.title AS title, c.source AS source,
       c.published_at AS published_at, c.locator AS locator, c.char_start AS char_start, c.char_end AS char_end,
       c.text AS text
