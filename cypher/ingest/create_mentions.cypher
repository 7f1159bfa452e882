// MENTIONS from chunks created in this run (see create_chunks): a new chunk has none yet.
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunk_id})
MATCH (e:Entity {key: row.key})
CREATE (c)-[:MENTIONS {count: row.count}]->(e)
