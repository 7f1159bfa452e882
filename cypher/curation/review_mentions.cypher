// A few chunks that mention each entity (smallest ids first), with the indices of the sentences naming it.
UNWIND $keys AS key
MATCH (e:Entity {workspace: $workspace, key: key})
CALL (e) {
  MATCH (c:Chunk {workspace: $workspace})-[m:MENTIONS]->(e)
  RETURN c, m
  ORDER BY c.id
  LIMIT $chunks
}
RETURN key, c.id AS chunk_id, c.text AS text, coalesce(m.sentences, []) AS sentences
ORDER BY key, chunk_id
