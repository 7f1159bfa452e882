// Test and benchmark fixtures only (titled passages with given facts): one Document with one Chunk per row.
UNWIND $rows AS row
MERGE (d:Document {id: row.document_id})
SET d.title = row.title, d.source = row.source, d.chunk_count = 1
MERGE (c:Chunk {id: row.chunk_id})
SET c.document_id = row.document_id, c.index = 0, c.text = row.text, c.title = row.title, c.source = row.source
MERGE (d)-[:HAS_CHUNK]->(c)
