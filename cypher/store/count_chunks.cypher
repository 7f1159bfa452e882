// How many chunks the workspace has (a count of its workspace index).
RETURN COUNT { (:Chunk {workspace: $workspace}) } AS chunks
