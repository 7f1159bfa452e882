// Whether a chunk exists (an added fact's provenance must name one).
OPTIONAL MATCH (c:Chunk {workspace: $workspace, id: $chunk_id})
RETURN c IS NOT NULL AS found
