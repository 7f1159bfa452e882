// MENTIONS found by the dictionary linker. An edge the tagger already wrote keeps its count and gains the sentences;
// a new one is marked `linked` (found by name, not by the tagger).
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunk_id})
MATCH (e:Entity {key: row.key})
MERGE (c)-[m:MENTIONS]->(e)
ON CREATE SET m.count = row.count, m.title = false, m.linked = true, m.sentences = row.sentences
ON MATCH SET m.sentences = reduce(acc = coalesce(m.sentences, []), s IN row.sentences |
  CASE WHEN s IN acc THEN acc ELSE acc + s END)
