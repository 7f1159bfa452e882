// Test and benchmark fixtures only: MENTIONS, with `title` marking the entity a passage is about.
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunk_id})
MATCH (e:Entity {key: row.entity_key})
MERGE (c)-[m:MENTIONS]->(e)
SET m.count = row.count, m.title = row.title
