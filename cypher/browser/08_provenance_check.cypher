// Provenance health: typed relationships without chunk ids, with an evidence list not parallel to them (inferred ones
// have none), or citing chunks that are gone;
// entities no chunk mentions (Publications some Document reports by excepted). Every count should be 0.
CALL () {
  MATCH (:Entity {workspace: $workspace})-[r]->(:Entity {workspace: $workspace})
  WHERE r.chunk_ids IS NULL OR size(r.chunk_ids) = 0
  RETURN count(r) AS relationships_without_chunks
}
CALL () {
  MATCH (:Entity {workspace: $workspace})-[r]->(:Entity {workspace: $workspace})
  WHERE r.chunk_ids IS NOT NULL AND r.evidence IS NOT NULL AND size(r.evidence) <> size(r.chunk_ids)
  RETURN count(r) AS relationships_with_misaligned_evidence
}
CALL () {
  MATCH (:Entity {workspace: $workspace})-[r]->(:Entity {workspace: $workspace})
  UNWIND coalesce(r.chunk_ids, []) AS chunk_id
  OPTIONAL MATCH (c:Chunk {workspace: $workspace, id: chunk_id})
  WITH chunk_id, c
  WHERE c IS NULL
  RETURN count(chunk_id) AS citations_of_missing_chunks
}
CALL () {
  MATCH (e:Entity {workspace: $workspace})
  WHERE NOT EXISTS { (:Chunk {workspace: $workspace})-[:MENTIONS]->(e) } AND NOT EXISTS { (:Document {workspace: $workspace})-[:REPORTED_BY]->(e) }
  RETURN count(e) AS unsupported_entities
}
RETURN relationships_without_chunks, relationships_with_misaligned_evidence, citations_of_missing_chunks,
       unsupported_entities
