UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.id})
SET c.linked = true
