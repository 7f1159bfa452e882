// One chunk by id with its document's metadata (a citation opened by an MCP client); none when $readers (null:
// anyone) may not read it.
MATCH (c:Chunk {workspace: $workspace, id: $chunk_id})
WHERE $readers IS NULL OR c.access IS NULL OR any(name IN c.access WHERE name IN $readers)
RETURN c.id AS chunk_id, c.document_id AS document_id, c.index AS index, c.title AS title, c.source AS source,
       c.published_at AS published_at, c.locator AS locator, c.char_start AS char_start, c.char_end AS char_end,
       c.text AS text
