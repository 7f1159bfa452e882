// `names`: the normalised names by which the chunk names the entity (the aliases it taught: ingest/rows.py).
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunk_id})
MATCH (e:Entity {workspace: $workspace, key: row.key})
MERGE (c)-[m:MENTIONS]->(e)
SET m.count = row.count, m.title = row.title, m.sentences = row.sentences, m.names = row.names
