// Delete one document (its chunks are already gone), then its Publication and Date if nothing else uses them.
MATCH (d:Document {workspace: $workspace, id: $document_id})
OPTIONAL MATCH (d)-[:REPORTED_BY]->(p:Entity {workspace: $workspace})
OPTIONAL MATCH (d)-[:PUBLISHED_ON]->(t:Date {workspace: $workspace})
DETACH DELETE d
WITH p, t
CALL (p) {
  WITH p
  WHERE p IS NOT NULL AND NOT EXISTS { (:Chunk {workspace: $workspace})-[:MENTIONS]->(p) } AND NOT EXISTS { (:Document {workspace: $workspace})-[:REPORTED_BY]->(p) }
  DETACH DELETE p
}
CALL (t) {
  WITH t
  WHERE t IS NOT NULL AND NOT EXISTS { (:Document {workspace: $workspace})-[:PUBLISHED_ON]->(t) }
  DETACH DELETE t
}
RETURN count(*) AS deleted
