// MENTIONS from chunks created in this run (see create_chunks): a new chunk has none yet. `title`: the entity is
// what the chunk's document is about; `sentences`: which of the chunk's sentences name it (the structural layer);
// `names`: the normalised names by which it names the entity (the aliases it taught: ingest/rows.py).
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunk_id})
MATCH (e:Entity {workspace: $workspace, key: row.key})
CREATE (c)-[:MENTIONS {count: row.count, title: row.title, sentences: row.sentences, names: row.names}]->(e)
