// How many chunks the workspace holds (its workspace index), to decide whether the chunk cache can hold them all.
MATCH (c:Chunk {workspace: $workspace})
RETURN count(c) AS chunks
