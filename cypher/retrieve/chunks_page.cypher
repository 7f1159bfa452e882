// One page of every chunk, in id order after $after (a seek on the chunk_id constraint's index), with the metadata
// retrieve/chunks_by_id returns: the chunk cache reads a small store whole, page by page.
MATCH (c:Chunk {workspace: $workspace})
WHERE c.id > $after
RETURN c.id AS chunk_id, c.document_id AS document_id, c.title AS title, c.source AS source,
       c.published_at AS published_at, c.locator AS locator, c.text AS text
ORDER BY c.id
LIMIT $limit
