// Every chunk id in the graph, one page at a time in id order (the Chunk.id uniqueness index serves the order).
MATCH (c:Chunk {workspace: $workspace})
WHERE c.id > $after
RETURN c.id AS id
ORDER BY c.id
LIMIT $limit
