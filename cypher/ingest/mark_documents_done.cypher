// The commit marker: a document with a content_hash has all of its chunks, entities and relationships written.
UNWIND $rows AS row
MATCH (d:Document {workspace: $workspace, id: row.id})
SET d.content_hash = row.content_hash, d.chunk_count = row.chunk_count, d.extractor = row.extractor
