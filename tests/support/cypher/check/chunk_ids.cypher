// The id of every chunk.
MATCH (c:Chunk {workspace: $workspace})
RETURN c.id AS id
