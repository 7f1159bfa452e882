// How many chunks the graph has (a count-store lookup).
RETURN COUNT { (:Chunk) } AS chunks
