// Chunks of documents the graph already has; a chunk written again is scanned again by the dictionary linker.
UNWIND $rows AS row
MATCH (d:Document {workspace: $workspace, id: row.document_id})
MERGE (c:Chunk {workspace: $workspace, id: row.id})
SET c.document_id = row.document_id, c.index = row.index, c.text = row.text, c.title = row.title,
    c.source = row.source, c.published_at = row.published_at, c.locator = row.locator,
    c.char_start = row.char_start, c.char_end = row.char_end, c.access = d.access
REMOVE c.linked
MERGE (d)-[:HAS_CHUNK]->(c)
