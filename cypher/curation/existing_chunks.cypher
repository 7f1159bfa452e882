// Which of $ids are chunk ids of the graph (an added fact's rule needs its chunk).
UNWIND $ids AS id
MATCH (c:Chunk {workspace: $workspace, id: id})
RETURN c.id AS id
