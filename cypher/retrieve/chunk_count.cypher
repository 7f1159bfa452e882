// How many chunks the store holds (the count store: no scan), to decide whether the chunk cache can hold them all.
MATCH (c:Chunk)
RETURN count(c) AS chunks
