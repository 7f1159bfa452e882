// MENTIONS found by the dictionary linker. An edge the tagger already wrote keeps its count and gains the sentences;
// a new one is marked `linked` (found by name, not by the tagger). `names`: the normalised names found, joined to
// the edge's (an edge written before names were recorded keeps none: its aliases' provenance is unknown).
UNWIND $rows AS row
MATCH (c:Chunk {workspace: $workspace, id: row.chunk_id})
MATCH (e:Entity {workspace: $workspace, key: row.key})
MERGE (c)-[m:MENTIONS]->(e)
ON CREATE SET m.count = row.count, m.title = false, m.linked = true, m.sentences = row.sentences, m.names = row.names
ON MATCH SET m.sentences = reduce(acc = coalesce(m.sentences, []), s IN row.sentences |
  CASE WHEN s IN acc THEN acc ELSE acc + s END),
  m.names = CASE WHEN m.names IS NULL THEN null
                 ELSE reduce(acc = m.names, n IN row.names | CASE WHEN n IN acc THEN acc ELSE acc + n END) END
