// A split's chosen documents (each with its chunk ids) and chunks, and whether each exists.
CALL () {
  UNWIND $documents AS id
  OPTIONAL MATCH (d:Document {workspace: $workspace, id: id})
  OPTIONAL MATCH (d)-[:HAS_CHUNK]->(c:Chunk {workspace: $workspace})
  RETURN 'document' AS kind, id, d IS NOT NULL AS found, collect(c.id) AS chunks
  UNION ALL
  UNWIND $chunks AS id
  OPTIONAL MATCH (c:Chunk {workspace: $workspace, id: id})
  RETURN 'chunk' AS kind, id, c IS NOT NULL AS found, [id] AS chunks
}
RETURN kind, id, found, chunks
