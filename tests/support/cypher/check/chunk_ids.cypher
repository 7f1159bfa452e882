// The id of every chunk.
MATCH (c:Chunk)
RETURN c.id AS id
